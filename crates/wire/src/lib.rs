//! Collie's wire and the DSH bridge's wire: their shapes, limits and cleaning (docs/WIRE.md,
//! docs/DSH.md), and `out`, the one way out for every byte a terminal, a stream or a file gets.
//! Pure: no sockets, files or processes.

pub mod dsh_wire;
pub mod out;
pub mod wire;
