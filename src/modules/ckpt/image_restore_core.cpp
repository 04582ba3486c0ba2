// Built with -fno-stack-protector -fno-builtin -fno-tree-loop-distribute-patterns
// (src/modules/ckpt/CMakeLists.txt): this code outlives the canary, the C
// library's data and the heap of the process it runs in, so it must not
// check a canary, nor have a loop turned into a call to memcpy.
#include "modules/ckpt/image_restore_core.hpp"

#include "modules/ckpt/image.hpp"

namespace ftmpi::ckpt {

namespace {

struct CoreArgs {
  const Op* ops;
  uint64_t n;
  jmp_buf* capture_point;
  ResumeInfo* resume;
  ResumeInfo info;
};

inline long sys6(long nr, long a = 0, long b = 0, long c = 0, long d = 0, long e = 0, long f = 0) {
  register long r10 asm("r10") = d;
  register long r8 asm("r8") = e;
  register long r9 asm("r9") = f;
  long ret;
  asm volatile("syscall"
               : "=a"(ret)
               : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
               : "rcx", "r11", "memory");
  return ret;
}

constexpr long kSysWrite = 1, kSysClose = 3, kSysMmap = 9, kSysMprotect = 10, kSysMunmap = 11, kSysBrk = 12, kSysMadvise = 28,
               kSysSigaction = 13, kSysSigprocmask = 14, kSysSigaltstack = 131, kSysArchPrctl = 158,
               kSysGettid = 186, kSysExitGroup = 231, kSysDup3 = 292;
constexpr long kArchSetFs = 0x1002;
constexpr long kMapFixed = 0x10, kMapPrivate = 0x02, kMapAnonymous = 0x20, kCloexec = 02000000;

// "<text><number>" into buf at *pos, no library calls.
void put_text(char* buf, int& pos, const char* s) {
  while (*s && pos < 200) buf[pos++] = *s++;
}
void put_num(char* buf, int& pos, uint64_t v) {
  char tmp[24];
  int k = 0;
  do {
    tmp[k++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v && k < 24);
  while (k > 0 && pos < 200) buf[pos++] = tmp[--k];
}

[[noreturn]] void die(uint64_t index, uint32_t code, long ret) {
  char buf[256];
  int pos = 0;
  put_text(buf, pos, "ftmpi: checkpoint restore failed after the process was partly overwritten: operation ");
  put_num(buf, pos, index);
  put_text(buf, pos, " (kind ");
  put_num(buf, pos, code);
  put_text(buf, pos, ") returned errno ");
  put_num(buf, pos, static_cast<uint64_t>(-ret));
  buf[pos++] = '\n';
  sys6(kSysWrite, 2, reinterpret_cast<long>(buf), pos);
  for (;;) sys6(kSysExitGroup, kRestoreFailedExit);
}

inline bool failed(long r) { return r < 0 && r > -4096; }

[[noreturn]] void core_main(CoreArgs* args) {
  for (uint64_t i = 0; i < args->n; ++i) {
    const Op& op = args->ops[i];
    long r = 0;
    switch (op.code) {
      case OpCode::kBrk:
        r = sys6(kSysBrk, static_cast<long>(op.a));
        if (static_cast<uint64_t>(r) != op.a) die(i, static_cast<uint32_t>(op.code), -12);
        r = 0;
        break;
      case OpCode::kUnmap:
        r = sys6(kSysMunmap, static_cast<long>(op.a), static_cast<long>(op.b));
        break;
      case OpCode::kMapAnon:
        r = sys6(kSysMmap, static_cast<long>(op.a), static_cast<long>(op.b), static_cast<long>(op.c),
                 kMapFixed | kMapPrivate | kMapAnonymous, -1, 0);
        break;
      case OpCode::kMapFile:
        r = sys6(kSysMmap, static_cast<long>(op.a), static_cast<long>(op.b), static_cast<long>(op.c),
                 kMapFixed | static_cast<long>(op.e), op.fd, static_cast<long>(op.d));
        break;
      case OpCode::kProtect:
        r = sys6(kSysMprotect, static_cast<long>(op.a), static_cast<long>(op.b), static_cast<long>(op.c));
        break;
      case OpCode::kTouch:
        *reinterpret_cast<volatile char*>(op.a) = 0;
        break;
      case OpCode::kDiscard:
        r = sys6(kSysMadvise, static_cast<long>(op.a), static_cast<long>(op.b), 4 /* MADV_DONTNEED */);
        break;
      case OpCode::kCopy: {
        auto* dst = reinterpret_cast<char*>(op.a);
        auto* src = reinterpret_cast<const char*>(op.b);
        uint64_t len = op.c;
        asm volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(len) : : "memory");
        break;
      }
      case OpCode::kDup:
        r = sys6(kSysDup3, op.fd, static_cast<long>(op.e), op.c ? kCloexec : 0);
        if (!failed(r)) r = sys6(kSysClose, op.fd);
        break;
      case OpCode::kClose:
        sys6(kSysClose, op.fd);
        break;
      case OpCode::kSigaction:
        r = sys6(kSysSigaction, static_cast<long>(op.e), static_cast<long>(op.a), 0, 8);
        break;
      case OpCode::kSigaltstack:
        r = sys6(kSysSigaltstack, static_cast<long>(op.a), 0);
        break;
      case OpCode::kSigmask: {
        uint64_t mask = op.a;
        r = sys6(kSysSigprocmask, 2 /* SIG_SETMASK */, reinterpret_cast<long>(&mask), 0, 8);
        break;
      }
      case OpCode::kSetFs:
        r = sys6(kSysArchPrctl, kArchSetFs, static_cast<long>(op.a));
        break;
      case OpCode::kSetTid:
        *reinterpret_cast<volatile int32_t*>(op.a) = static_cast<int32_t>(sys6(kSysGettid));
        break;
      case OpCode::kFpu: {
        uint32_t mxcsr = static_cast<uint32_t>(op.a);
        uint16_t cw = static_cast<uint16_t>(op.b);
        asm volatile("ldmxcsr %0\n\tfldcw %1" : : "m"(mxcsr), "m"(cw));
        break;
      }
    }
    if (failed(r)) die(i, static_cast<uint32_t>(op.code), r);
  }
  // The image's memory is in place: these globals now belong to it.
  args->resume->scratch = args->info.scratch;
  args->resume->scratch_len = args->info.scratch_len;
  args->resume->env = args->info.env;
  args->resume->env_len = args->info.env_len;
  longjmp(*args->capture_point, 1);
}

}  // namespace

void run_restore_core(void* stack_top, const Op* ops, uint64_t n, const CoreTarget& target) {
  // The arguments go below the new stack's top, where nothing overwrites them.
  auto* args = reinterpret_cast<CoreArgs*>(static_cast<char*>(stack_top) - 128);
  args->ops = ops;
  args->n = n;
  args->capture_point = target.capture_point;
  args->resume = target.resume;
  args->info.scratch = target.info.scratch;
  args->info.scratch_len = target.info.scratch_len;
  args->info.env = target.info.env;
  args->info.env_len = target.info.env_len;
  void* sp = static_cast<char*>(stack_top) - 256;  // 16-byte aligned, below the arguments
  void (*fn)(CoreArgs*) = core_main;
  asm volatile(
      "mov %0, %%rsp\n\t"
      "xor %%ebp, %%ebp\n\t"
      "call *%1\n\t"
      "ud2"
      :
      : "r"(sp), "r"(fn), "D"(args)
      : "memory");
  __builtin_unreachable();
}

}  // namespace ftmpi::ckpt
