// The last stage of a restore: a list of operations prepared (and checked)
// by restore_from, executed on a temporary stack by code that calls nothing
// but raw system calls, because it overwrites the C library's data, the heap,
// the stack and the thread block it would otherwise use. It ends with a
// longjmp to the capture point recorded in the image.
#pragma once
#include <csetjmp>
#include <cstdint>

namespace ftmpi::ckpt {

enum class OpCode : uint32_t {
  kBrk,         // a = new break
  kUnmap,       // a, b = start, length
  kMapAnon,     // a, b, c = start, length, prot (MAP_FIXED, private)
  kMapFile,     // a, b, c = start, length, prot; d = offset; fd; e = MAP_SHARED or MAP_PRIVATE
  kProtect,     // a, b, c = start, length, prot
  kTouch,       // a = address written once (grows the stack down to it)
  kDiscard,     // a, b = start, length (madvise DONTNEED: reads as zero)
  kCopy,        // a = destination, b = source, c = length
  kDup,         // fd -> e (with O_CLOEXEC if c), then fd closed
  kClose,       // fd
  kSigaction,   // e = signal, a = address of a KernelSigaction
  kSigaltstack, // a = address of a stack_t
  kSigmask,     // a = mask
  kSetFs,       // a = thread pointer
  kSetTid,      // a = address of glibc's cached thread id (written with gettid())
  kFpu,         // a = MXCSR, b = x87 control word
};

struct Op {
  OpCode code;
  int32_t fd;
  uint64_t a, b, c, d, e;
};

// Left by the core in the restored process, read by capture_self's resumed path.
struct ResumeInfo {
  uint64_t scratch = 0, scratch_len = 0;
  uint64_t env = 0, env_len = 0;  // NUL-separated restorer environment, inside the scratch
};
// The capture point: registers saved by capture_self (in the image's memory),
// and where its resumed path finds the ResumeInfo. A process may hold two
// copies of this module (a program linking it statically, and libftmpi.so):
// the image names the copy that captured, and whichever copy's load-time
// hook runs first restores into it.
extern jmp_buf g_capture_point;
extern ResumeInfo g_resume;

struct CoreTarget {
  jmp_buf* capture_point;
  ResumeInfo* resume;
  ResumeInfo info;
};

// Runs `n` operations from `ops` on the stack whose top is `stack_top`, then
// stores target.info at target.resume and jumps to target.capture_point.
// Never returns; a failing operation prints a line and ends the process with
// kRestoreFailedExit.
[[noreturn]] void run_restore_core(void* stack_top, const Op* ops, uint64_t n, const CoreTarget& target);

}  // namespace ftmpi::ckpt
