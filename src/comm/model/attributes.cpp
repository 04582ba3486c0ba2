#include "comm/model/attributes.hpp"

#include <algorithm>

namespace ftmpi::comm {

bool AttrList::get(int keyval, void** value) const {
  for (const Entry& e : entries_)
    if (e.keyval == keyval) {
      *value = e.value;
      return true;
    }
  return false;
}

int AttrList::put(int comm, int keyval, const Keyval& fns, void* value) {
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].keyval != keyval) continue;
    Entry old = entries_[i];
    if (old.fns.del)
      if (int rc = old.fns.del(comm, keyval, old.value, old.fns.extra); rc != 0) return rc;
    // The callback may have changed the list; find the entry again.
    auto it = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.keyval == keyval; });
    if (it != entries_.end()) {
      it->value = value;
      it->fns = fns;
    } else {
      entries_.push_back({keyval, value, fns});
    }
    return 0;
  }
  entries_.push_back({keyval, value, fns});
  return 0;
}

int AttrList::erase(int comm, int keyval) {
  auto it = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.keyval == keyval; });
  if (it == entries_.end()) return 0;
  Entry e = *it;
  if (e.fns.del)
    if (int rc = e.fns.del(comm, keyval, e.value, e.fns.extra); rc != 0) return rc;
  it = std::find_if(entries_.begin(), entries_.end(),
                    [&](const Entry& x) { return x.keyval == keyval && x.value == e.value; });
  if (it != entries_.end()) entries_.erase(it);
  return 0;
}

int AttrList::copy_to(AttrList& to, int old_comm) const {
  // Work on a snapshot: a copy callback may put attributes on the old communicator.
  const std::vector<Entry> snapshot = entries_;
  for (const Entry& e : snapshot) {
    if (!e.fns.copy) continue;
    void* out = nullptr;
    int flag = 0;
    if (int rc = e.fns.copy(old_comm, e.keyval, e.fns.extra, e.value, &out, &flag); rc != 0) return rc;
    if (flag) to.entries_.push_back({e.keyval, out, e.fns});
  }
  return 0;
}

int AttrList::clear(int comm) {
  int first_rc = 0;
  // Take each entry out before its callback runs, so a callback that sets or
  // deletes attributes on this communicator sees a consistent list.
  while (!entries_.empty()) {
    Entry e = entries_.front();
    entries_.erase(entries_.begin());
    if (!e.fns.del) continue;
    int rc = e.fns.del(comm, e.keyval, e.value, e.fns.extra);
    if (rc != 0 && first_rc == 0) first_rc = rc;
  }
  return first_rc;
}

std::vector<int> AttrList::keyvals() const {
  std::vector<int> out;
  out.reserve(entries_.size());
  for (const Entry& e : entries_) out.push_back(e.keyval);
  return out;
}

int KeyvalRegistry::create(const Keyval& k) {
  int id = next_++;
  live_.emplace(id, k);
  return id;
}

const Keyval* KeyvalRegistry::find(int keyval) const {
  auto it = live_.find(keyval);
  return it == live_.end() ? nullptr : &it->second;
}

bool KeyvalRegistry::release(int keyval) { return live_.erase(keyval) == 1; }

}  // namespace ftmpi::comm
