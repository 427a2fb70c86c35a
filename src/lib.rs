//! mcpdeck: a terminal console and agent proxy for Model Context Protocol servers.
//!
//! The engine lives in [`mcp`] and knows nothing about terminals; [`cli`] is the headless face;
//! [`demo`] is the built-in demo MCP server (`mcpdeck demo-server`); [`workspace`] is the
//! read-only workspace tools server (`mcpdeck workspace-server`).

pub mod cli;
pub mod demo;
pub mod mcp;
pub mod serve;
pub mod workspace;
