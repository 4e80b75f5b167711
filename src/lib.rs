pub use collie_acp::acp_host;
pub use collie_agent::durable;
pub use collie_check::{check, check_acp, doctor};
pub use collie_client::{engine, transport};
pub use collie_model::{chat, model, text};
pub use collie_sim::rigs;
pub use collie_tui::{app, config, look, screens, shell, tui, ui};
pub use collie_wire::{dsh_wire, out, wire};
pub mod cli;
