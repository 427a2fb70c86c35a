//! mcpdeck: a terminal console and agent proxy for Model Context Protocol servers.
//!
//! The engine lives in [`mcp`] and knows nothing about terminals; [`cli`] is the headless face.

pub mod cli;
pub mod mcp;
