//! mcpdeck: a terminal console and agent proxy for Model Context Protocol servers.
//!
//! The engine lives in [`mcp`] and knows nothing about terminals; [`cli`] is the headless face;
//! [`serve`] is the agent proxy; [`app`] (state and update), [`ui`] (drawing) and [`console`]
//! (terminal, loop, effects) are the console; [`demo`] is the built-in demo MCP server
//! (`mcpdeck demo-server`); [`workspace`] is the read-only workspace tools server
//! (`mcpdeck workspace-server`).

// Functions stay readable in one screen: over 80 lines of code (`clippy.toml`) is a warning,
// which CI's `-D warnings` makes an error. Tests and fixtures are exempt (Cargo.toml allows it).
#![warn(clippy::too_many_lines)]

pub mod app;
pub mod cli;
pub mod console;
pub mod demo;
pub mod exit;
pub mod mcp;
pub mod serve;
pub mod ui;
pub mod workspace;
