// NCCL's functions, loaded at run time from libnccl.so.2: boundbench starts on machines without
// NCCL (a GPU machine that has only the CUDA driver and toolkit, or none), and the library (200+
// MB) is not carried in bundles. Types come from nccl.h; nothing links against libnccl.
#pragma once

#include <dlfcn.h>
#include <nccl.h>

#include <stdexcept>
#include <string>

namespace bb::kernels {

class NcclApi {
 public:
  NcclApi() {
    lib_ = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!lib_) {
      const char* why = dlerror();
      throw std::runtime_error(std::string("NCCL not found (libnccl.so.2: ") + (why ? why : "?") +
                               "); add its folder to LD_LIBRARY_PATH");
    }
    load(GetVersion, "ncclGetVersion");
    load(GetErrorString, "ncclGetErrorString");
    load(GetUniqueId, "ncclGetUniqueId");
    load(CommInitAll, "ncclCommInitAll");
    load(CommInitRank, "ncclCommInitRank");
    load(CommDestroy, "ncclCommDestroy");
    load(CommAbort, "ncclCommAbort");
    load(GroupStart, "ncclGroupStart");
    load(GroupEnd, "ncclGroupEnd");
    load(AllReduce, "ncclAllReduce");
    load(AllGather, "ncclAllGather");
    load(ReduceScatter, "ncclReduceScatter");
    load(Broadcast, "ncclBroadcast");
    load(Reduce, "ncclReduce");
    load(Send, "ncclSend");
    load(Recv, "ncclRecv");
  }
  ~NcclApi() { dlclose(lib_); }
  NcclApi(const NcclApi&) = delete;
  NcclApi& operator=(const NcclApi&) = delete;

  // Throws std::runtime_error naming the call and NCCL's error string.
  void check(ncclResult_t status, const char* call) const {
    if (status != ncclSuccess)
      throw std::runtime_error(std::string(call) + ": " + GetErrorString(status));
  }

  decltype(&ncclGetVersion) GetVersion = nullptr;
  decltype(&ncclGetErrorString) GetErrorString = nullptr;
  decltype(&ncclGetUniqueId) GetUniqueId = nullptr;
  decltype(&ncclCommInitAll) CommInitAll = nullptr;
  decltype(&ncclCommInitRank) CommInitRank = nullptr;
  decltype(&ncclCommDestroy) CommDestroy = nullptr;
  decltype(&ncclCommAbort) CommAbort = nullptr;
  decltype(&ncclGroupStart) GroupStart = nullptr;
  decltype(&ncclGroupEnd) GroupEnd = nullptr;
  decltype(&ncclAllReduce) AllReduce = nullptr;
  decltype(&ncclAllGather) AllGather = nullptr;
  decltype(&ncclReduceScatter) ReduceScatter = nullptr;
  decltype(&ncclBroadcast) Broadcast = nullptr;
  decltype(&ncclReduce) Reduce = nullptr;
  decltype(&ncclSend) Send = nullptr;
  decltype(&ncclRecv) Recv = nullptr;

 private:
  template <typename F>
  void load(F& f, const char* name) {
    f = reinterpret_cast<F>(dlsym(lib_, name));
    if (!f) throw std::runtime_error(std::string("libnccl.so.2 has no ") + name);
  }
  void* lib_ = nullptr;
};

}  // namespace bb::kernels
