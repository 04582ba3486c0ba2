#include "base/err.hpp"

namespace ftmpi {

const char* err_name(Err e) {
  switch (e) {
    case Err::kOk: return "success";
    case Err::kBuffer: return "invalid buffer";
    case Err::kCount: return "invalid count";
    case Err::kType: return "invalid datatype";
    case Err::kTag: return "invalid tag";
    case Err::kComm: return "invalid communicator";
    case Err::kRank: return "invalid rank";
    case Err::kRequest: return "invalid request";
    case Err::kRoot: return "invalid root";
    case Err::kGroup: return "invalid group";
    case Err::kOp: return "invalid operation";
    case Err::kTopology: return "invalid topology";
    case Err::kDims: return "invalid dimensions";
    case Err::kArg: return "invalid argument";
    case Err::kUnknown: return "unknown error";
    case Err::kTruncate: return "message truncated";
    case Err::kOther: return "process failure";
    case Err::kIntern: return "internal error";
    case Err::kInStatus: return "error in status";
    case Err::kPending: return "pending request";
    case Err::kKeyval: return "invalid keyval";
    case Err::kInfoKey: return "invalid info key";
    case Err::kInfoValue: return "invalid info value";
    case Err::kInfoNoKey: return "info key not defined";
    case Err::kNoMem: return "out of memory";
  }
  return "?";
}

}  // namespace ftmpi
