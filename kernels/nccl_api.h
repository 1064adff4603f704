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
  NcclApi() = default;  // throws std::runtime_error without libnccl.so.2 or one of its functions
  ~NcclApi() { dlclose(lib_); }
  NcclApi(const NcclApi&) = delete;
  NcclApi& operator=(const NcclApi&) = delete;

  // Throws std::runtime_error naming the call and NCCL's error string.
  void check(ncclResult_t status, const char* call) const {
    if (status != ncclSuccess)
      throw std::runtime_error(std::string(call) + ": " + GetErrorString(status));
  }
  // A new communicator's id, made by its rank 0 and shared with the other processes.
  ncclUniqueId unique_id() const {
    ncclUniqueId id{};
    check(GetUniqueId(&id), "ncclGetUniqueId");
    return id;
  }
  // The loaded library's version: "NCCL 2.21.5".
  std::string version_text() const {
    int v = 0;
    check(GetVersion(&v), "ncclGetVersion");
    return "NCCL " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
           std::to_string(v % 100);
  }

 private:
  static void* open() {
    void* lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* why = dlerror();
      throw std::runtime_error(std::string("NCCL not found (libnccl.so.2: ") + (why ? why : "?") +
                               "); add its folder to LD_LIBRARY_PATH");
    }
    return lib;
  }
  template <typename F>
  F load(const char* name) const {
    const auto f = reinterpret_cast<F>(dlsym(lib_, name));
    if (!f) throw std::runtime_error(std::string("libnccl.so.2 has no ") + name);
    return f;
  }
  void* lib_ = open();  // first: the functions below are loaded from it

 public:
  decltype(&ncclGetVersion) GetVersion = load<decltype(GetVersion)>("ncclGetVersion");
  decltype(&ncclGetErrorString) GetErrorString =
      load<decltype(GetErrorString)>("ncclGetErrorString");
  decltype(&ncclGetUniqueId) GetUniqueId = load<decltype(GetUniqueId)>("ncclGetUniqueId");
  decltype(&ncclCommInitAll) CommInitAll = load<decltype(CommInitAll)>("ncclCommInitAll");
  decltype(&ncclCommInitRank) CommInitRank = load<decltype(CommInitRank)>("ncclCommInitRank");
  decltype(&ncclCommDestroy) CommDestroy = load<decltype(CommDestroy)>("ncclCommDestroy");
  decltype(&ncclCommAbort) CommAbort = load<decltype(CommAbort)>("ncclCommAbort");
  decltype(&ncclGroupStart) GroupStart = load<decltype(GroupStart)>("ncclGroupStart");
  decltype(&ncclGroupEnd) GroupEnd = load<decltype(GroupEnd)>("ncclGroupEnd");
  decltype(&ncclAllReduce) AllReduce = load<decltype(AllReduce)>("ncclAllReduce");
  decltype(&ncclAllGather) AllGather = load<decltype(AllGather)>("ncclAllGather");
  decltype(&ncclReduceScatter) ReduceScatter = load<decltype(ReduceScatter)>("ncclReduceScatter");
  decltype(&ncclBroadcast) Broadcast = load<decltype(Broadcast)>("ncclBroadcast");
  decltype(&ncclReduce) Reduce = load<decltype(Reduce)>("ncclReduce");
  decltype(&ncclSend) Send = load<decltype(Send)>("ncclSend");
  decltype(&ncclRecv) Recv = load<decltype(Recv)>("ncclRecv");
};

}  // namespace bb::kernels
