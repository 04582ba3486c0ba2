#include "comm/model/topology.hpp"

#include <climits>

namespace ftmpi::comm {

int CartTopology::size() const {
  int n = 1;
  for (int d : dims) n *= d;
  return n;
}

std::vector<int> CartTopology::coords_of(int rank) const {
  std::vector<int> c(dims.size());
  for (size_t i = dims.size(); i-- > 0;) {
    c[i] = rank % dims[i];
    rank /= dims[i];
  }
  return c;
}

Err CartTopology::rank_of(const int* coords, int* rank) const {
  int r = 0;
  for (size_t i = 0; i < dims.size(); ++i) {
    int c = coords[i];
    if (periods[i]) {
      c %= dims[i];
      if (c < 0) c += dims[i];
    } else if (c < 0 || c >= dims[i]) {
      return Err::kArg;
    }
    r = r * dims[i] + c;
  }
  *rank = r;
  return Err::kOk;
}

Err CartTopology::shift(int rank, int dim, int disp, int* source, int* dest) const {
  if (dim < 0 || dim >= ndims()) return Err::kDims;
  std::vector<int> c = coords_of(rank);
  const int here = c[static_cast<size_t>(dim)];
  const int n = dims[static_cast<size_t>(dim)];
  auto neighbour = [&](long long to) {
    if (!periods[static_cast<size_t>(dim)] && (to < 0 || to >= n)) return kRankProcNull;
    long long w = to % n;
    if (w < 0) w += n;
    c[static_cast<size_t>(dim)] = static_cast<int>(w);
    int r = 0;
    (void)rank_of(c.data(), &r);  // every coordinate is in range now
    return r;
  };
  *dest = neighbour(static_cast<long long>(here) + disp);
  *source = neighbour(static_cast<long long>(here) - disp);
  return Err::kOk;
}

CartSubPlan cart_sub_plan(const CartTopology& cart, int rank, const int* remain_dims) {
  CartSubPlan p;
  std::vector<int> c = cart.coords_of(rank);
  // Row-major index over the dropped dimensions picks the sub-grid (color);
  // row-major index over the kept ones is the rank inside it (key).
  for (size_t i = 0; i < cart.dims.size(); ++i) {
    if (remain_dims[i]) {
      p.key = p.key * cart.dims[i] + c[i];
      p.sub.dims.push_back(cart.dims[i]);
      p.sub.periods.push_back(cart.periods[i]);
    } else {
      p.color = p.color * cart.dims[i] + c[i];
    }
  }
  return p;
}

int GraphTopology::degree(int rank) const {
  const size_t r = static_cast<size_t>(rank);
  return r == 0 ? index[0] : index[r] - index[r - 1];
}

const int* GraphTopology::neighbors(int rank) const {
  const size_t r = static_cast<size_t>(rank);
  return edges.data() + (r == 0 ? 0 : index[r - 1]);
}

Err make_graph(int nnodes, const int* index, const int* edges, int comm_size, GraphTopology* out) {
  if (nnodes < 0 || nnodes > comm_size) return Err::kArg;
  out->index.assign(index, index + nnodes);
  int prev = 0;
  for (int i = 0; i < nnodes; ++i) {
    if (index[i] < prev) return Err::kArg;
    prev = index[i];
  }
  out->edges.assign(edges, edges + prev);
  for (int e : out->edges)
    if (e < 0 || e >= nnodes) return Err::kArg;
  return Err::kOk;
}

Err make_cart(int ndims, const int* dims, const int* periods, int comm_size, CartTopology* out) {
  if (ndims < 0) return Err::kDims;
  long long n = 1;
  out->dims.assign(dims, dims + ndims);
  out->periods.resize(static_cast<size_t>(ndims));
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] <= 0) return Err::kDims;
    n *= dims[i];
    if (n > comm_size) return Err::kDims;
    out->periods[static_cast<size_t>(i)] = periods[i] ? 1 : 0;
  }
  return Err::kOk;
}

namespace {

// Exhaustive search over non-increasing factor lists, walking only the
// divisors of the number to split (at most 1344 below 2^31), so the cost
// does not grow with nnodes itself.
struct DimsSearch {
  int k;                  // number of free dimensions
  std::vector<int> divs;  // divisors of the number to split, descending
  std::vector<int> cur, best;
  int best_spread = INT_MAX;

  void consider() {
    const int spread = cur.front() - cur.back();
    if (spread < best_spread || (spread == best_spread && cur < best)) {
      best_spread = spread;
      best = cur;
    }
  }
  // Chooses cur[pos..k) non-increasing, each <= limit, with product `rest`.
  void run(size_t pos, int rest, int limit) {
    const int left = k - static_cast<int>(pos);
    if (left == 1) {
      if (rest <= limit) {
        cur[pos] = rest;
        consider();
      }
      return;
    }
    for (int f : divs) {
      if (f > limit || rest % f) continue;
      // The largest remaining factor is at least rest^(1/left).
      long long pw = 1;
      for (int i = 0; i < left && pw < rest; ++i) pw *= f;
      if (pw < rest) break;  // smaller f cannot cover `rest` either
      // Later factors are <= f, so the spread is at least cur[0] - f, and
      // it only grows as f shrinks.
      if (pos > 0 && best_spread != INT_MAX && cur[0] - f > best_spread) break;
      cur[pos] = f;
      run(pos + 1, rest / f, f);
    }
  }
};

std::vector<int> divisors_descending(int n) {
  std::vector<int> small, large;
  for (int d = 1; static_cast<long long>(d) * d <= n; ++d)
    if (n % d == 0) {
      small.push_back(d);
      if (d != n / d) large.push_back(n / d);
    }
  std::vector<int> out(large.begin(), large.end());
  out.insert(out.end(), small.rbegin(), small.rend());
  return out;
}

}  // namespace

Err dims_create(int nnodes, int ndims, int* dims) {
  if (ndims < 0 || nnodes < 1) return Err::kDims;
  long long fixed = 1;
  int free_dims = 0;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] < 0) return Err::kDims;
    if (dims[i] == 0) ++free_dims;
    else fixed *= dims[i];
    if (fixed > nnodes) return Err::kDims;
  }
  if (nnodes % fixed != 0) return Err::kDims;
  const int rest = static_cast<int>(nnodes / fixed);
  if (free_dims == 0) return rest == 1 ? Err::kOk : Err::kDims;
  DimsSearch s;
  s.k = free_dims;
  s.divs = divisors_descending(rest);
  s.cur.assign(static_cast<size_t>(free_dims), 1);
  s.run(0, rest, rest);
  size_t j = 0;
  for (int i = 0; i < ndims; ++i)
    if (dims[i] == 0) dims[i] = s.best[j++];
  return Err::kOk;
}

}  // namespace ftmpi::comm
