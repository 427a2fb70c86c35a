//! `mcpdeck workspace-server`: its tools, bounds, busy behaviour, index speed and the Python SDK
//! client. One test binary of the suite (CONTRIBUTING.md names them all and says what goes where);
//! each module below was its own binary before.

#[path = "../common/mod.rs"]
mod common;

mod workspace_bounds;
mod workspace_busy;
mod workspace_index_speed;
mod workspace_python_sdk;
mod workspace_sandbox;
mod workspace_server;
