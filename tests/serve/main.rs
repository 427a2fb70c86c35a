//! `mcpdeck serve` and `mcpdeck demo-server` driven by a real rmcp client (and the Python SDK),
//! with approvals. One test binary of the suite (CONTRIBUTING.md names them all and says what goes
//! where); each module below was its own binary before.

#[path = "../common/mod.rs"]
mod common;

mod demo_server;
mod serve;
mod serve_approvals;
mod serve_golden;
mod serve_kit;
mod serve_modern;
mod serve_pins;
mod serve_policy_reload;
mod serve_python;
