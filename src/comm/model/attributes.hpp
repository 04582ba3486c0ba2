// Attributes cached on a communicator (MPI-1.2 §5.7) and the keyval registry.
//
// An attribute entry carries a copy of its keyval's callbacks, so freeing a
// keyval (which only forbids new uses of the key) never changes what the
// attributes already attached do; keyval numbers are never reused, so an old
// attribute cannot be mistaken for one of a newer keyval.
//
// Entries are kept in the order they were first set: delete callbacks run in
// that order, which FT-MPI (spec §6.3) turns into a sequence of recovery
// handlers on MPI_COMM_WORLD. Replacing a value keeps the entry's place (the
// key was registered once).
//
// Callbacks are plain function pointers of the shapes of MPI_Copy_function /
// MPI_Delete_function with the communicator handle as an int (src/api
// static_asserts that they match). A callback may call MPI again, even on
// the same communicator, so no operation here holds an iterator across one.
#pragma once
#include <cstddef>
#include <unordered_map>
#include <vector>

namespace ftmpi::comm {

using AttrCopyFn = int (*)(int comm, int keyval, void* extra_state, void* value_in, void* value_out, int* flag);
using AttrDeleteFn = int (*)(int comm, int keyval, void* value, void* extra_state);

struct Keyval {
  AttrCopyFn copy = nullptr;  // null: never copied
  AttrDeleteFn del = nullptr;  // null: nothing to run
  void* extra = nullptr;
};

class AttrList {
 public:
  struct Entry {
    int keyval;
    void* value;
    Keyval fns;
  };

  // The value set for `keyval`, or false.
  bool get(int keyval, void** value) const;
  // Sets, or replaces (running the delete callback of the old value first; if
  // that fails, its code is returned and the old value stays).
  int put(int comm, int keyval, const Keyval& fns, void* value);
  // Runs the delete callback and removes the entry. An absent key is not an
  // error (returns 0). A failing callback leaves the entry in place.
  int erase(int comm, int keyval);
  // MPI_Comm_dup: runs every copy callback in order; the ones that set their
  // flag add an entry to `to`. Stops at the first failing callback and
  // returns its code (the caller discards `to` with clear()).
  int copy_to(AttrList& to, int old_comm) const;
  // Deletes every attribute, running the delete callbacks in the order the
  // attributes were set. Every callback runs even if one fails; the first
  // failure's code is returned. Used by MPI_Comm_free and, on
  // MPI_COMM_WORLD, as the last step of an FT-MPI recovery.
  int clear(int comm);

  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  // Keyvals in set order (for tests and diagnostics).
  std::vector<int> keyvals() const;

 private:
  std::vector<Entry> entries_;
};

// Keyvals of this process. Numbers below `first_user` are reserved for the
// predefined keys; user keyvals count up from it and are never reused.
class KeyvalRegistry {
 public:
  explicit KeyvalRegistry(int first_user = 16) : next_(first_user), first_user_(first_user) {}
  int create(const Keyval& k);
  // The callbacks of a live user keyval, or nullptr.
  const Keyval* find(int keyval) const;
  // Forgets a user keyval; false if it is not a live user keyval.
  bool release(int keyval);
  bool is_reserved(int keyval) const { return keyval >= 0 && keyval < first_user_; }
  // A number create() handed out, live or released since.
  bool issued(int keyval) const { return keyval >= first_user_ && keyval < next_; }
  size_t live() const { return live_.size(); }

 private:
  std::unordered_map<int, Keyval> live_;
  int next_;
  int first_user_;
};

}  // namespace ftmpi::comm
