//! Every integration test in one binary, as helix does: the crate and its dependencies link once
//! instead of once per file, which is most of what a one-line change cost to test. Each module is
//! one subject (the file names say which); `common` holds the rigs they share: a real agent on a
//! real socket, a phone on a `TestBackend`, tmux, a faulty peer, a hostile agent.
//!
//! Run one subject with `cargo test --test integration app_flows::` (or any part of a test's
//! path); docs/TESTING.md lists them by kind.

mod common;

mod acp_elicitation;
mod acp_host;
mod acp_host_v2;
mod agent_chaos;
mod agent_http;
mod agent_restart;
mod agent_socket;
mod agent_tls;
mod agent_tls_auto;
mod agent_worlds;
mod app_dsh;
mod app_flows;
mod app_inspector;
mod app_moves;
mod app_rings;
mod app_screens;
mod app_triage;
mod check;
mod check_acp;
mod check_asks;
mod check_breaks;
mod cli_help;
mod config_file;
mod connection_errors;
mod doctor;
mod dsh_bridge;
mod dsh_cadence;
mod dsh_client;
mod dsh_real_peer;
mod dsh_real_shapes;
mod edges_told;
mod engine_agent;
mod engine_faults;
mod engine_idle;
mod fuzz_corpus;
mod hostile;
mod layering;
mod own_hands;
mod real_agents;
mod record_replay;
mod rings;
mod script;
mod shell_cmd;
mod soak;
mod spec_book;
mod ssh_remote;
mod tmux;
mod tmux_claims;
mod tmux_glass;
mod tmux_moves;
mod tmux_rings;
mod tmux_terminal;
mod wire_props;
