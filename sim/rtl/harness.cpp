// harness.cpp - the Verilator harness of one accelerator model: clock, AXI DRAM, control.
//
// The design idea: the harness is the accelerator's board. It owns the clock, plays the AXI4
// slave in front of the simulated device memory (sim/mem's reservation, through a base pointer
// and the allocation check), and drives the AXI4-Lite control port the way a host driver does
// (arguments, ap_start, wait for the done interrupt, read the counters). Nothing reaches into the
// RTL's internals, so what works here works against a real shell.
//
// The DRAM model is deliberately simple and deterministic: read bursts are served in order, the
// first beat `read_latency` cycles after the address was accepted and then one beat per cycle
// (or fewer, with a bandwidth limit in bytes per cycle); several bursts may be in flight, which
// is what lets the RTL keep the bus busy. Write data is accepted for bursts whose address has
// been accepted, written with its byte strobes, and answered `write_latency` cycles after the
// last beat. Writes outside an allocation are dropped and reported as VTA_ERR_BOUNDS.
//
// Each cycle: the harness samples the design's outputs (with the inputs of this cycle applied),
// decides every handshake of the cycle, clocks the design, updates the memory model from those
// handshakes and applies the next cycle's inputs. Handshakes are therefore decided on exactly
// the values the design saw at the clock edge.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <string>

#include "Vvta_top.h"
#include "Vvta_top___024root.h"
#include "verilated.h"
#if VM_TRACE
#include "verilated_fst_c.h"
#endif
#if VM_COVERAGE
#include "verilated_cov.h"
#endif

#include "sim/rtl/rtl_model.h"
#include "vta/status.h"

#ifndef VTA_RTL_MODEL_KEY
#error "VTA_RTL_MODEL_KEY must name the configuration this model was built for"
#endif

namespace {

// Assertion failures of the RTL call vl_stop; the harness turns them into an error of the run
// instead of letting Verilator end the host process.
std::string g_stop_msg;
bool g_stopped = false;

template <typename T>
void put_bytes(T &sig, const uint8_t *src, size_t n) {
  uint64_t v = 0;
  std::memcpy(&v, src, n < sizeof v ? n : sizeof v);
  sig = static_cast<T>(v);
}
template <std::size_t W>
void put_bytes(VlWide<W> &sig, const uint8_t *src, size_t n) {
  std::memcpy(sig.data(), src, n);
}
template <typename T>
void get_bytes(const T &sig, uint8_t *dst, size_t n) {
  uint64_t v = static_cast<uint64_t>(sig);
  std::memcpy(dst, &v, n < sizeof v ? n : sizeof v);
}
template <std::size_t W>
void get_bytes(const VlWide<W> &sig, uint8_t *dst, size_t n) {
  std::memcpy(dst, sig.data(), n);
}

struct ReadBurst {
  uint64_t addr;
  uint32_t beats, done;
  uint32_t id;
  uint64_t ready;  // cycle of the first beat
};
struct WriteBurst {
  uint64_t addr;
  uint32_t beats, done;
};

class Model {
 public:
  explicit Model(const vta_rtl_model_opts &o) : opts_(o) {
    ctx_.reset(new VerilatedContext);
    ctx_->fatalOnError(false);
    // The model is verilated for one thread; without this the context still starts a pool of
    // hardware_concurrency() - 1 idle worker threads, and a process that forks after opening a
    // model (vta regress) could copy a lock one of them holds.
    ctx_->threads(1);
    // Assertions (--assert) are compiled in; a run may switch them off for speed.
    ctx_->assertOn(!opts_.asserts_off);
    top_.reset(new Vvta_top(ctx_.get(), "vta"));
    bus_bytes_ = sizeof(top_->m_axi_rdata_i);
#if VM_TRACE
    if (o.wave_path) {
      ctx_->traceEverOn(true);
      tfp_.reset(new VerilatedFstC);
      top_->trace(tfp_.get(), 99);
      tfp_->open(o.wave_path);
    }
#endif
    reset();
  }
  ~Model() {
#if VM_TRACE
    if (tfp_) tfp_->close();
#endif
    top_->final();
#if VM_COVERAGE
    if (opts_.coverage_path) ctx_->coveragep()->write(opts_.coverage_path);
#endif
  }

  int run(uint64_t insn, uint32_t count, uint64_t max_cycles, vta_rtl_result *res, char *err,
          size_t n);
  bool wave_ok() const {
#if VM_TRACE
    return !opts_.wave_path || (tfp_ && tfp_->isOpen());
#else
    return !opts_.wave_path;
#endif
  }

 private:
  void reset();
  void cycle();
  void drive();
  // Reports this cycle's activity (before the edge, as the counters see it) when it differs.
  void sample(bool r, bool w) {
    const auto *root = top_->rootp;
    if (!root->vta_top__DOT__u_ctrl__DOT__running_q) {
      run_cycle_ = 0;
      return;
    }
    vta_rtl_sample s{};
    s.cycle = run_cycle_++;
    s.busy = root->vta_top__DOT__busy;
    s.done = root->vta_top__DOT__insn_done;
    s.dispatch = (root->vta_top__DOT__f_load_valid && root->vta_top__DOT__f_load_ready) |
                 (root->vta_top__DOT__f_comp_valid && root->vta_top__DOT__f_comp_ready) << 1 |
                 (root->vta_top__DOT__f_store_valid && root->vta_top__DOT__f_store_ready) << 2;
    s.fetch_done = root->vta_top__DOT__fetch_done;
    s.queue[0] = root->vta_top__DOT__lq_count;
    s.queue[1] = root->vta_top__DOT__cq_count;
    s.queue[2] = root->vta_top__DOT__sq_count;
    s.tokens[0] = root->vta_top__DOT__u_l2c__DOT__count_q;
    s.tokens[1] = root->vta_top__DOT__u_c2l__DOT__count_q;
    s.tokens[2] = root->vta_top__DOT__u_c2s__DOT__count_q;
    s.tokens[3] = root->vta_top__DOT__u_s2c__DOT__count_q;
    for (const ReadBurst &b : rq_) s.rd_bytes += uint64_t(b.beats - b.done) * bus_bytes_;
    for (const WriteBurst &b : wq_) s.wr_bytes += uint64_t(b.beats - b.done) * bus_bytes_;
    (void)r;
    (void)w;
    vta_rtl_sample cmp = s;
    cmp.cycle = last_sample_.cycle;
    if (s.done || s.dispatch || s.cycle == 0 || std::memcmp(&cmp, &last_sample_, sizeof cmp) != 0)
      opts_.sample(opts_.sample_ctx, &s);
    last_sample_ = s;
  }
  bool in_window() const {
    return cycle_ >= opts_.wave_from && (opts_.wave_to == 0 || cycle_ < opts_.wave_to);
  }
  void lite_write(uint32_t addr, uint32_t data);
  uint32_t lite_read(uint32_t addr);

  vta_rtl_model_opts opts_;
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Vvta_top> top_;
#if VM_TRACE
  std::unique_ptr<VerilatedFstC> tfp_;
#endif
  size_t bus_bytes_ = 8;
  uint64_t cycle_ = 0, time_ = 0, watch_cycle_ = 0, run_cycle_ = 0;
  vta_rtl_sample last_sample_{};
  std::deque<ReadBurst> rq_;
  std::deque<WriteBurst> wq_;
  std::deque<uint64_t> bq_;  // cycles at which write responses become valid
  uint64_t rcredit_ = 0, wcredit_ = 0;
  std::string mem_error_;
  uint8_t beat_[256];
};

// Applies the inputs of the next cycle from the memory model's state.
void Model::drive() {
  Vvta_top &t = *top_;
  t.m_axi_arready_i = rq_.size() < 64;
  t.m_axi_awready_i = wq_.size() < 64;
  bool bw_read = opts_.bytes_per_cycle == 0 || rcredit_ >= bus_bytes_;
  bool bw_write = opts_.bytes_per_cycle == 0 || wcredit_ >= bus_bytes_;
  if (!rq_.empty() && rq_.front().ready <= cycle_ && bw_read) {
    const ReadBurst &b = rq_.front();
    uint64_t a = b.addr + uint64_t(b.done) * bus_bytes_;
    if (a + bus_bytes_ <= opts_.mem_capacity)
      std::memcpy(beat_, opts_.mem_base + a, bus_bytes_);
    else
      std::memset(beat_, 0, bus_bytes_);
    put_bytes(t.m_axi_rdata_i, beat_, bus_bytes_);
    t.m_axi_rvalid_i = 1;
    t.m_axi_rid_i = b.id;
    t.m_axi_rlast_i = b.done + 1 == b.beats;
    t.m_axi_rresp_i = 0;
  } else {
    t.m_axi_rvalid_i = 0;
  }
  t.m_axi_wready_i = !wq_.empty() && bw_write;
  t.m_axi_bvalid_i = !bq_.empty() && bq_.front() <= cycle_;
  t.m_axi_bresp_i = 0;
  t.m_axi_bid_i = 3;
}

void Model::cycle() {
  Vvta_top &t = *top_;
  // Handshakes of this cycle, on the values the design sees at the edge.
  bool ar = t.m_axi_arvalid_o && t.m_axi_arready_i;
  bool r = t.m_axi_rvalid_i && t.m_axi_rready_o;
  bool aw = t.m_axi_awvalid_o && t.m_axi_awready_i;
  bool w = t.m_axi_wvalid_o && t.m_axi_wready_i;
  bool b = t.m_axi_bvalid_i && t.m_axi_bready_o;
  ReadBurst nr{};
  WriteBurst nw{};
  if (ar) nr = {t.m_axi_araddr_o, uint32_t(t.m_axi_arlen_o) + 1, 0, t.m_axi_arid_o, 0};
  if (aw) nw = {t.m_axi_awaddr_o, uint32_t(t.m_axi_awlen_o) + 1, 0};
  uint8_t wdata[256], wstrb[32];
  bool wlast = false;
  if (w) {
    get_bytes(t.m_axi_wdata_o, wdata, bus_bytes_);
    std::memset(wstrb, 0, sizeof wstrb);
    get_bytes(t.m_axi_wstrb_o, wstrb, (bus_bytes_ + 7) / 8);
    wlast = t.m_axi_wlast_o;
  }

  if (opts_.sample) sample(r, w);

  t.clk_i = 1;
  t.eval();
#if VM_TRACE
  if (tfp_ && in_window()) tfp_->dump(time_);
#endif
  time_++;
  cycle_++;

  if (opts_.bytes_per_cycle) {
    rcredit_ += opts_.bytes_per_cycle;
    wcredit_ += opts_.bytes_per_cycle;
    if (rcredit_ > 4 * bus_bytes_) rcredit_ = 4 * bus_bytes_;
    if (wcredit_ > 4 * bus_bytes_) wcredit_ = 4 * bus_bytes_;
  }
  if (r) {
    if (opts_.bytes_per_cycle) rcredit_ -= bus_bytes_;
    ReadBurst &h = rq_.front();
    if (++h.done == h.beats) rq_.pop_front();
  }
  if (ar) {
    nr.ready = cycle_ + opts_.read_latency;
    if (nr.addr + uint64_t(nr.beats) * bus_bytes_ > opts_.mem_capacity && mem_error_.empty())
      mem_error_ = "read burst at 0x" + std::to_string(nr.addr) + " is outside device memory";
    rq_.push_back(nr);
  }
  if (w) {
    if (opts_.bytes_per_cycle) wcredit_ -= bus_bytes_;
    WriteBurst &h = wq_.front();
    uint64_t a = h.addr + uint64_t(h.done) * bus_bytes_;
    // Only the strobed bytes are written; they must lie inside an allocation.
    size_t lo = bus_bytes_, hi = 0;
    for (size_t k = 0; k < bus_bytes_; k++)
      if (wstrb[k / 8] >> (k % 8) & 1) {
        if (lo == bus_bytes_) lo = k;
        hi = k;
      }
    if (lo < bus_bytes_) {
      if (a + hi < opts_.mem_capacity && opts_.mem_check(opts_.mem_ctx, a + lo, hi - lo + 1)) {
        for (size_t k = lo; k <= hi; k++)
          if (wstrb[k / 8] >> (k % 8) & 1) {
            opts_.mem_base[a + k] = wdata[k];
            if (a + k == opts_.watch_addr && opts_.watch_addr) watch_cycle_ = cycle_;
          }
      } else if (mem_error_.empty()) {
        char buf[160];
        std::snprintf(buf, sizeof buf,
                      "a write of %zu bytes at physical address 0x%llx is outside the allocated "
                      "device memory",
                      hi - lo + 1, (unsigned long long)(a + lo));
        mem_error_ = buf;
      }
    }
    if (++h.done == h.beats) {
      if (!wlast && mem_error_.empty()) mem_error_ = "write burst ended without WLAST";
      bq_.push_back(cycle_ + opts_.write_latency);
      wq_.pop_front();
    }
  }
  if (aw) wq_.push_back(nw);
  if (b) bq_.pop_front();

  drive();
  t.clk_i = 0;
  t.eval();
#if VM_TRACE
  if (tfp_ && in_window()) tfp_->dump(time_);
#endif
  time_++;
}

void Model::reset() {
  Vvta_top &t = *top_;
  t.clk_i = 0;
  t.rst_ni = 0;
  t.s_axil_awvalid_i = 0;
  t.s_axil_wvalid_i = 0;
  t.s_axil_bready_i = 0;
  t.s_axil_arvalid_i = 0;
  t.s_axil_rready_i = 0;
  t.s_axil_wstrb_i = 0xF;
  drive();
  t.eval();
  for (int i = 0; i < 4; i++) cycle();
  t.rst_ni = 1;
  t.eval();
  cycle();
}

void Model::lite_write(uint32_t addr, uint32_t data) {
  Vvta_top &t = *top_;
  t.s_axil_awvalid_i = 1;
  t.s_axil_wvalid_i = 1;
  t.s_axil_awaddr_i = addr;
  t.s_axil_wdata_i = data;
  t.s_axil_wstrb_i = 0xF;
  t.s_axil_bready_i = 1;
  t.eval();
  for (int guard = 0; guard < 100; guard++) {
    bool acc = t.s_axil_awready_o;
    cycle();
    if (acc) break;
  }
  t.s_axil_awvalid_i = 0;
  t.s_axil_wvalid_i = 0;
  t.eval();
  for (int guard = 0; guard < 100 && !t.s_axil_bvalid_o; guard++) cycle();
  cycle();  // the response handshake
  t.s_axil_bready_i = 0;
  t.eval();
}

uint32_t Model::lite_read(uint32_t addr) {
  Vvta_top &t = *top_;
  t.s_axil_arvalid_i = 1;
  t.s_axil_araddr_i = addr;
  t.s_axil_rready_i = 1;
  t.eval();
  for (int guard = 0; guard < 100; guard++) {
    bool acc = t.s_axil_arready_o;
    cycle();
    if (acc) break;
  }
  t.s_axil_arvalid_i = 0;
  t.eval();
  for (int guard = 0; guard < 100 && !t.s_axil_rvalid_o; guard++) cycle();
  uint32_t v = t.s_axil_rdata_o;
  cycle();
  t.s_axil_rready_i = 0;
  t.eval();
  return v;
}

int Model::run(uint64_t insn, uint32_t count, uint64_t max_cycles, vta_rtl_result *res, char *err,
               size_t n) {
  uint64_t start = cycle_;
  watch_cycle_ = 0;
  g_stopped = false;
  mem_error_.clear();
  lite_write(VTA_REG_OFFSET_GIE, 1);
  lite_write(VTA_REG_OFFSET_IER, 1);  // done
  lite_write(VTA_REG_OFFSET_INSN_COUNT, count);
  lite_write(VTA_REG_OFFSET_INSN_ADDR, uint32_t(insn));
  lite_write(VTA_REG_OFFSET_INSN_ADDR + 4, uint32_t(insn >> 32));
  lite_write(VTA_REG_OFFSET_CTRL, VTA_CTRL_AP_START);
  // Saturating: the caller passes UINT64_MAX for a run without a limit.
  uint64_t limit = max_cycles > UINT64_MAX - cycle_ ? UINT64_MAX : cycle_ + max_cycles;
  int rc = VTA_OK;
  while (!top_->interrupt_o) {
    if (g_stopped) break;
    if (cycle_ >= limit) {
      rc = VTA_ERR_TIMEOUT;
      break;
    }
    cycle();
  }
  std::memset(res, 0, sizeof *res);
  static const uint32_t counter_offset[VTA_RTL_CNT_COUNT] = {
#define VTA_X(id, nm, off, desc) off,
      VTA_REGMAP_COUNTERS(VTA_X)
#undef VTA_X
  };
  for (int c = 0; c < VTA_RTL_CNT_COUNT; c++) {
    uint32_t a = counter_offset[c];
    uint64_t lo = lite_read(a), hi = lite_read(a + 4);
    res->counters[c] = lo | hi << 32;
  }
  res->status = lite_read(VTA_REG_OFFSET_STATUS);
  res->config_id = lite_read(VTA_REG_OFFSET_CONFIG_ID);
  res->watch_cycle = watch_cycle_;
  if (rc == VTA_OK && !g_stopped) {
    (void)lite_read(VTA_REG_OFFSET_CTRL);  // clears ap_done
    lite_write(VTA_REG_OFFSET_ISR, 1);     // clears the done interrupt
  }
  res->sim_cycles = cycle_ - start;
  if (g_stopped) {
    std::snprintf(err, n, "RTL assertion failed: %s", g_stop_msg.c_str());
    // The design is in an undefined state: start from reset next time.
    reset();
    return VTA_ERR_INVALID;
  }
  if (rc == VTA_ERR_TIMEOUT) {
    uint32_t s = res->status;
    std::snprintf(err, n,
                  "timeout: the accelerator did not finish within %llu cycles (fetch %s; busy: "
                  "load %u, compute %u, store %u; %llu load, %llu compute, %llu store "
                  "instructions completed)",
                  (unsigned long long)max_cycles, (s >> 3 & 1) ? "done" : "still fetching",
                  s & 1, s >> 1 & 1, s >> 2 & 1,
                  (unsigned long long)res->counters[VTA_RTL_CNT_INSNS_LOAD],
                  (unsigned long long)res->counters[VTA_RTL_CNT_INSNS_COMPUTE],
                  (unsigned long long)res->counters[VTA_RTL_CNT_INSNS_STORE]);
    reset();
    return VTA_ERR_TIMEOUT;
  }
  if (!mem_error_.empty()) {
    std::snprintf(err, n, "%s", mem_error_.c_str());
    return VTA_ERR_BOUNDS;
  }
  return VTA_OK;
}

void *model_create(const vta_rtl_model_opts *o, char *err, size_t n) {
  try {
    Model *m = new Model(*o);
    // An assertion of the RTL's initial blocks (checks made once as the model starts, such as
    // vta_add_lut's) fails the model's creation.
    if (g_stopped) {
      std::snprintf(err, n, "RTL assertion failed as the model started: %s", g_stop_msg.c_str());
      g_stopped = false;
      delete m;
      return nullptr;
    }
    if (!m->wave_ok()) {
      std::snprintf(err, n, "cannot open the waveform file %s%s", o->wave_path,
#if VM_TRACE
                    ""
#else
                    " (this model was built without tracing)"
#endif
      );
      delete m;
      return nullptr;
    }
#if !VM_COVERAGE
    if (o->coverage_path) {
      std::snprintf(err, n,
                    "cannot write coverage to %s: this model was built without coverage (make "
                    "rtl-cov-models builds the models with it)",
                    o->coverage_path);
      delete m;
      return nullptr;
    }
#endif
    return m;
  } catch (const std::exception &e) {
    std::snprintf(err, n, "cannot create the RTL model: %s", e.what());
    return nullptr;
  }
}

void model_destroy(void *m) { delete static_cast<Model *>(m); }

int model_run(void *m, uint64_t insn, uint32_t count, uint64_t max_cycles, vta_rtl_result *res,
              char *err, size_t n) {
  return static_cast<Model *>(m)->run(insn, count, max_cycles, res, err, n);
}

const vta_rtl_model_api k_api = {VTA_RTL_MODEL_ABI, VTA_RTL_MODEL_KEY, model_create,
                                 model_destroy, model_run};

}  // namespace

// Verilator calls this for $stop and failed assertions (VL_USER_STOP is defined for this build).
void vl_stop(const char *filename, int linenum, const char *hier) {
  if (!g_stopped) {
    char buf[512];
    std::snprintf(buf, sizeof buf, "%s:%d (%s)", filename ? filename : "?", linenum,
                  hier ? hier : "?");
    g_stop_msg = buf;
  }
  g_stopped = true;
}

extern "C" __attribute__((visibility("default"))) const vta_rtl_model_api *vta_rtl_model_entry(
    void) {
  return &k_api;
}
