#include "rte/client/pmix_boot.hpp"

#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <pmix.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "base/auth.hpp"
#include "base/codec.hpp"
#include "base/fd.hpp"
#include "base/log.hpp"
#include "base/params.hpp"
#include "rte/client/client.hpp"
#include "rte/client/shm_handout.hpp"
#include "rte/proto/codec_util.hpp"

namespace ftmpi::rte {
namespace {

constexpr const char* kKeySecret = "ftmpi.secret";
constexpr const char* kKeyShm = "ftmpi.shm";
constexpr const char* kKeyCard = "ftmpi.card";
// How long the local leader waits for its peers to fetch the segment.
constexpr int kHandoutTimeoutMs = 60000;

template <typename E>
bool mode_from_env(const char* name, E& out) {
  const char* v = std::getenv(name);
  if (!v || !*v) return true;
  if (parse_mode(v, out)) return true;
  FTMPI_LOG(kError, "pmix", "%s=%s is not a valid mode", name, v);
  return false;
}

std::string pmix_error(pmix_status_t rc) { return PMIx_Error_string(rc); }

// The address this host's TCP transport binds when ranks span hosts: the
// first IPv4 address of an interface that is up and not loopback.
std::string first_external_ipv4() {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return "";
  std::string found;
  for (ifaddrs* i = list; i && found.empty(); i = i->ifa_next) {
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET) continue;
    if (!(i->ifa_flags & IFF_UP) || (i->ifa_flags & IFF_LOOPBACK)) continue;
    char buf[INET_ADDRSTRLEN];
    auto* a = reinterpret_cast<sockaddr_in*>(i->ifa_addr);
    if (inet_ntop(AF_INET, &a->sin_addr, buf, sizeof buf)) found = buf;
  }
  freeifaddrs(list);
  return found;
}

class PmixBoot final : public BootBackend {
 public:
  ~PmixBoot() override;
  Err init(BootInfo& out) override;
  int fd() const override { return epfd_; }
  Err exchange_cards(const Card& mine, std::vector<Card>& all) override;
  void poll(EventSink& sink) override;
  bool has_pending_events() const override { return false; }
  Err finalize() override;
  [[noreturn]] void abort(int code, const std::string& msg) override;
  void report_suspect(ProcId who) override;

 private:
  static void on_event(size_t id, pmix_status_t status, const pmix_proc_t* source, pmix_info_t info[], size_t ninfo,
                       pmix_info_t* results, size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,
                       void* cbdata);
  bool get(const pmix_proc_t& who, const char* key, pmix_value_t*& val, bool quiet = false);
  bool put(pmix_scope_t scope, const char* key, pmix_value_t& val);
  bool fence(bool collect);
  void note_failure(int32_t rank, const char* how);
  [[noreturn]] void end_job(const std::string& why);
  pmix_proc_t rank_proc(int32_t r) const {
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, me_.nspace, static_cast<pmix_rank_t>(r));
    return p;
  }

  pmix_proc_t me_{};
  bool inited_ = false;
  bool finalized_ = false;
  int32_t rank_ = 0;
  int32_t size_ = 1;
  int32_t host_ = 0;
  std::string hostname_;
  std::vector<int32_t> local_slots_;
  HostResources shm_;
  bool handler_ = false;
  size_t handler_ref_ = 0;
  int evfd_ = -1;  // written by the PMIx thread, and by report_suspect
  int epfd_ = -1;  // evfd_ and the pidfds of the other local ranks
  std::vector<std::pair<int, int32_t>> peer_pidfds_;  // pidfd, rank
  // Set by the PMIx event thread: first rank reported gone (-1: none), and
  // whether the report was a termination of the whole job.
  std::atomic<int32_t> failed_rank_{-1};
  std::atomic<int32_t> event_status_{0};
};

PmixBoot::~PmixBoot() {
  for (auto& [pfd, r] : peer_pidfds_) fd::close_quietly(pfd);
  fd::close_quietly(epfd_);
  fd::close_quietly(evfd_);
  if (handler_ && !finalized_) PMIx_Deregister_event_handler(handler_ref_, nullptr, nullptr);
  if (inited_ && !finalized_) PMIx_Finalize(nullptr, 0);
}

bool PmixBoot::get(const pmix_proc_t& who, const char* key, pmix_value_t*& val, bool quiet) {
  val = nullptr;
  pmix_status_t rc = PMIx_Get(&who, key, nullptr, 0, &val);
  if (rc == PMIX_SUCCESS && val) return true;
  if (!quiet) FTMPI_LOG(kError, "pmix", "PMIx_Get(%s, rank %u): %s", key, who.rank, pmix_error(rc).c_str());
  if (val) PMIX_VALUE_RELEASE(val);
  val = nullptr;
  return false;
}

bool PmixBoot::put(pmix_scope_t scope, const char* key, pmix_value_t& val) {
  pmix_status_t rc = PMIx_Put(scope, key, &val);
  if (rc != PMIX_SUCCESS) FTMPI_LOG(kError, "pmix", "PMIx_Put(%s): %s", key, pmix_error(rc).c_str());
  return rc == PMIX_SUCCESS;
}

bool PmixBoot::fence(bool collect) {
  pmix_status_t rc = PMIx_Commit();
  if (rc != PMIX_SUCCESS) {
    FTMPI_LOG(kError, "pmix", "PMIx_Commit: %s", pmix_error(rc).c_str());
    return false;
  }
  pmix_info_t info;
  bool flag = collect;
  PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &flag, PMIX_BOOL);
  pmix_proc_t all;
  PMIX_LOAD_PROCID(&all, me_.nspace, PMIX_RANK_WILDCARD);
  rc = PMIx_Fence(&all, 1, &info, 1);
  PMIX_INFO_DESTRUCT(&info);
  if (rc != PMIX_SUCCESS) FTMPI_LOG(kError, "pmix", "PMIx_Fence: %s", pmix_error(rc).c_str());
  return rc == PMIX_SUCCESS;
}

void PmixBoot::on_event(size_t, pmix_status_t status, const pmix_proc_t* source, pmix_info_t info[], size_t ninfo,
                        pmix_info_t*, size_t, pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata) {
  PmixBoot* self = nullptr;
  const pmix_proc_t* affected = source;
  for (size_t i = 0; i < ninfo; ++i) {
    if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_RETURN_OBJECT)) self = static_cast<PmixBoot*>(info[i].value.data.ptr);
    if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC)) affected = info[i].value.data.proc;
  }
  if (self) {
    int32_t rank = -1;
    if (affected && PMIX_CHECK_NSPACE(affected->nspace, self->me_.nspace) && affected->rank < PMIX_RANK_WILDCARD)
      rank = static_cast<int32_t>(affected->rank);
    // Only another rank's end matters here; our own is not news to us.
    if (rank != self->rank_) {
      int32_t none = -1;
      self->failed_rank_.compare_exchange_strong(none, rank >= 0 ? rank : self->size_);
      self->event_status_.store(status);
      uint64_t one = 1;
      if (::write(self->evfd_, &one, sizeof one) < 0) { /* already signalled */ }
    }
  }
  if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, nullptr, 0, nullptr, nullptr, cbdata);
}

Err PmixBoot::init(BootInfo& out) {
  out = BootInfo{};
  const char* env_rank = std::getenv("PMIX_RANK");
  const bool speaker = env_rank && std::atoi(env_rank) == 0;
  if (!mode_from_env("FTMPI_COMM_MODE", out.modes.comm) || !mode_from_env("FTMPI_MSG_MODE", out.modes.msg) ||
      !mode_from_env("FTMPI_COLL_MODE", out.modes.coll) || !mode_from_env("FTMPI_RECOVERY_MODE", out.modes.recovery))
    return Err::kArg;
  const char* transparent = std::getenv("FTMPI_TRANSPARENT");
  std::string refused;
  if (out.modes.comm != CommMode::kAbort)
    refused = std::string("comm mode ") + mode_name(out.modes.comm);
  else if (transparent && *transparent && std::string(transparent) != "0")
    refused = "transparent mode";
  if (!refused.empty()) {
    // One line for the job, not one per rank.
    if (speaker)
      std::fprintf(stderr,
                   "ftmpi: %s needs ftmpirun: srun --mpi=pmix gives no process-failure recovery; run ftmpirun inside "
                   "the allocation (salloc/sbatch) instead\n",
                   refused.c_str());
    std::fflush(nullptr);
    ::_exit(1);
  }

  pmix_status_t rc = PMIx_Init(&me_, nullptr, 0);
  if (rc != PMIX_SUCCESS) {
    FTMPI_LOG(kError, "pmix", "PMIx_Init: %s", pmix_error(rc).c_str());
    return Err::kIntern;
  }
  inited_ = true;
  rank_ = static_cast<int32_t>(me_.rank);
  pmix_proc_t wild;
  PMIX_LOAD_PROCID(&wild, me_.nspace, PMIX_RANK_WILDCARD);
  pmix_value_t* v = nullptr;
  if (!get(wild, PMIX_JOB_SIZE, v)) return Err::kIntern;
  size_ = static_cast<int32_t>(v->data.uint32);
  PMIX_VALUE_RELEASE(v);
  if (!get(me_, PMIX_NODEID, v)) return Err::kIntern;
  host_ = static_cast<int32_t>(v->data.uint32);
  PMIX_VALUE_RELEASE(v);
  if (get(me_, PMIX_HOSTNAME, v, true)) {
    hostname_ = v->data.string ? v->data.string : "";
    PMIX_VALUE_RELEASE(v);
  }
  if (hostname_.empty()) {
    char buf[256] = {};
    gethostname(buf, sizeof buf - 1);
    hostname_ = buf;
  }
  if (!get(wild, PMIX_LOCAL_PEERS, v)) return Err::kIntern;
  std::stringstream peers(v->data.string ? v->data.string : "");
  PMIX_VALUE_RELEASE(v);
  for (std::string r; std::getline(peers, r, ',');)
    if (!r.empty()) local_slots_.push_back(std::atoi(r.c_str()));
  std::sort(local_slots_.begin(), local_slots_.end());
  auto mine = std::find(local_slots_.begin(), local_slots_.end(), rank_);
  if (mine == local_slots_.end() || size_ < 1 || rank_ >= size_) {
    FTMPI_LOG(kError, "pmix", "rank %d of %d is not among its host's peers", rank_, size_);
    return Err::kIntern;
  }
  const size_t local_index = static_cast<size_t>(mine - local_slots_.begin());

  // Round 1: rank 0's secret for everybody, the local leader's socket for its host.
  auth::Secret secret{};
  if (rank_ == 0) {
    secret = auth::make_secret();
    std::string hex = auth::to_hex(secret);
    pmix_value_t s;
    PMIX_VALUE_LOAD(&s, hex.c_str(), PMIX_STRING);
    bool okput = put(PMIX_GLOBAL, kKeySecret, s);
    PMIX_VALUE_DESTRUCT(&s);
    if (!okput) return Err::kIntern;
  }
  HandoutServer server;
  const bool leader = local_index == 0 && local_slots_.size() > 1;
  if (leader) {
    if (Err e = server.open(local_slots_.size(), shm_); !ok(e)) return e;
    pmix_value_t s;
    PMIX_VALUE_LOAD(&s, server.name().c_str(), PMIX_STRING);
    bool okput = put(PMIX_LOCAL, kKeyShm, s);
    PMIX_VALUE_DESTRUCT(&s);
    if (!okput) return Err::kIntern;
  }
  if (!fence(true)) return Err::kIntern;
  if (rank_ != 0) {
    if (!get(rank_proc(0), kKeySecret, v)) return Err::kIntern;
    bool good = v->type == PMIX_STRING && v->data.string && auth::from_hex(v->data.string, secret);
    PMIX_VALUE_RELEASE(v);
    if (!good) {
      FTMPI_LOG(kError, "pmix", "malformed job secret from rank 0");
      return Err::kIntern;
    }
  }
  if (leader) {
    if (Err e = server.serve(shm_, local_index, kHandoutTimeoutMs); !ok(e)) return e;
  } else if (local_slots_.size() > 1) {
    if (!get(rank_proc(local_slots_.front()), kKeyShm, v)) return Err::kIntern;
    std::string name = v->type == PMIX_STRING && v->data.string ? v->data.string : "";
    PMIX_VALUE_RELEASE(v);
    if (Err e = fetch_host_resources(name, static_cast<int32_t>(local_index), local_slots_.size(), shm_,
                                     kHandoutTimeoutMs);
        !ok(e))
      return e;
  }

  evfd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  epfd_ = epoll_create1(EPOLL_CLOEXEC);
  if (evfd_ < 0 || epfd_ < 0) return Err::kIntern;
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = 0;
  epoll_ctl(epfd_, EPOLL_CTL_ADD, evfd_, &ev);
  // Termination notices, where the server sends them (Slurm 22.05 does not;
  // then the pidfds and the transports notice). Registered without a
  // callback, the call blocks and returns the handler's reference.
  pmix_status_t codes[] = {PMIX_ERR_PROC_ABORTED, PMIX_EVENT_PROC_TERMINATED, PMIX_ERR_PROC_TERM_WO_SYNC,
                           PMIX_ERR_PROC_ABORTED_BY_SIG, PMIX_ERR_EXIT_NONZERO_TERM, PMIX_EVENT_JOB_END,
                           PMIX_ERR_LOST_CONNECTION};
  pmix_info_t hinfo[2];
  PMIX_INFO_LOAD(&hinfo[0], PMIX_EVENT_RETURN_OBJECT, this, PMIX_POINTER);
  PMIX_INFO_LOAD(&hinfo[1], PMIX_EVENT_HDLR_NAME, "ftmpi-failures", PMIX_STRING);
  rc = PMIx_Register_event_handler(codes, sizeof codes / sizeof codes[0], hinfo, 2, &PmixBoot::on_event, nullptr,
                                   nullptr);
  PMIX_INFO_DESTRUCT(&hinfo[0]);
  PMIX_INFO_DESTRUCT(&hinfo[1]);
  if (rc >= 0) {
    handler_ = true;
    handler_ref_ = static_cast<size_t>(rc);
  } else {
    FTMPI_LOG(kDebug, "pmix", "no termination events: %s", pmix_error(rc).c_str());
  }

  out.self = ProcId{rank_, 0};
  out.world_size = size_;
  out.host = host_;
  out.hostname = hostname_;
  out.local_slots = local_slots_;
  out.local_index = static_cast<int32_t>(local_index);
  out.shm_fd = shm_.memfd;
  out.doorbell_fds = shm_.doorbells;
  out.secret = secret;
  const char* addr = std::getenv("FTMPI_TCP_ADDR");
  if (addr && *addr)
    out.tcp_bind_addr = addr;
  else if (local_slots_.size() == static_cast<size_t>(size_))
    out.tcp_bind_addr = "127.0.0.1";  // every rank on this host
  else
    out.tcp_bind_addr = first_external_ipv4();
  if (out.tcp_bind_addr.empty()) {
    FTMPI_LOG(kError, "pmix", "no network address for TCP between hosts (set FTMPI_TCP_ADDR)");
    return Err::kIntern;
  }
  return Err::kOk;
}

Err PmixBoot::exchange_cards(const Card& mine, std::vector<Card>& all) {
  Card card = mine;
  card.id = ProcId{rank_, 0};
  card.host = host_;
  card.pid = static_cast<int32_t>(getpid());
  std::vector<uint8_t> bytes;
  Encoder enc(&bytes);
  proto::put_card(enc, card);
  pmix_value_t val;
  pmix_byte_object_t bo{reinterpret_cast<char*>(bytes.data()), bytes.size()};
  PMIX_VALUE_LOAD(&val, &bo, PMIX_BYTE_OBJECT);
  bool okput = put(PMIX_GLOBAL, kKeyCard, val);
  PMIX_VALUE_DESTRUCT(&val);
  if (!okput || !fence(true)) return Err::kIntern;
  all.assign(static_cast<size_t>(size_), Card{});
  for (int32_t r = 0; r < size_; ++r) {
    pmix_value_t* v = nullptr;
    if (!get(rank_proc(r), kKeyCard, v)) return Err::kIntern;
    bool good = v->type == PMIX_BYTE_OBJECT;
    if (good) {
      Decoder dec(v->data.bo.bytes, v->data.bo.size);
      all[static_cast<size_t>(r)] = proto::get_card(dec);
      good = dec.done() && all[static_cast<size_t>(r)].id.slot == r;
    }
    PMIX_VALUE_RELEASE(v);
    if (!good) {
      FTMPI_LOG(kError, "pmix", "malformed card of rank %d", r);
      return Err::kIntern;
    }
  }
  // The other ranks of this host: their exit before the finalize fence is a failure.
  for (int32_t r : local_slots_) {
    if (r == rank_) continue;
    int pfd = static_cast<int>(syscall(SYS_pidfd_open, all[static_cast<size_t>(r)].pid, 0));
    if (pfd < 0) {
      note_failure(r, "was gone at start-up");
      continue;
    }
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = peer_pidfds_.size() + 1;
    epoll_ctl(epfd_, EPOLL_CTL_ADD, pfd, &ev);
    peer_pidfds_.emplace_back(pfd, r);
  }
  return Err::kOk;
}

void PmixBoot::note_failure(int32_t rank, const char* how) {
  int32_t none = -1;
  failed_rank_.compare_exchange_strong(none, rank);
  FTMPI_LOG(kDebug, "pmix", "rank %d %s", rank, how);
  uint64_t one = 1;
  if (::write(evfd_, &one, sizeof one) < 0) { /* already signalled */ }
}

void PmixBoot::report_suspect(ProcId who) {
  // No runtime to ask: a transport error towards a rank is its failure.
  if (who.valid() && who.slot != rank_) note_failure(who.slot, "broke its connection");
}

void PmixBoot::poll(EventSink&) {
  uint64_t n;
  while (::read(evfd_, &n, sizeof n) > 0) {
  }
  epoll_event evs[16];
  int k = epoll_wait(epfd_, evs, 16, 0);
  for (int i = 0; i < k; ++i)
    if (evs[i].data.u64 > 0) note_failure(peer_pidfds_[evs[i].data.u64 - 1].second, "exited");
  int32_t r = failed_rank_.load();
  if (r < 0) return;
  if (r >= size_)
    end_job(std::string("the PMIx server reports ") + pmix_error(event_status_.load()));
  end_job("rank " + std::to_string(r) + " ended before MPI_Finalize");
}

void PmixBoot::end_job(const std::string& why) {
  std::string msg = "ftmpi: " + why + "; ending the job (comm mode abort)";
  std::fprintf(stderr, "%s\n", msg.c_str());
  std::fflush(nullptr);
  // The server ends every process of the job; if it cannot, we at least go.
  PMIx_Abort(1, msg.c_str(), nullptr, 0);
  ::_exit(1);
}

Err PmixBoot::finalize() {
  for (auto& [pfd, r] : peer_pidfds_) {
    epoll_ctl(epfd_, EPOLL_CTL_DEL, pfd, nullptr);
    fd::close_quietly(pfd);
  }
  peer_pidfds_.clear();
  if (!fence(false)) return Err::kIntern;
  if (handler_) PMIx_Deregister_event_handler(handler_ref_, nullptr, nullptr);
  handler_ = false;
  PMIx_Finalize(nullptr, 0);
  finalized_ = true;
  return Err::kOk;
}

void PmixBoot::abort(int code, const std::string& msg) {
  int status = (code & 0xff) == 0 && code != 0 ? 1 : (code & 0xff);
  std::fprintf(stderr, "ftmpi: rank %d called MPI_Abort with code %d: %s\n", rank_, code, msg.c_str());
  std::fflush(nullptr);
  if (inited_ && !finalized_) PMIx_Abort(status, msg.c_str(), nullptr, 0);
  ::_exit(status);
}

}  // namespace

std::unique_ptr<BootBackend> make_pmix_boot() { return std::make_unique<PmixBoot>(); }

}  // namespace ftmpi::rte
