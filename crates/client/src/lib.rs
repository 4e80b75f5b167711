//! The phone's side of both protocols: `transport` makes one exchange (a socket or TLS, a
//! deadline, a reply cap, privacy, tokens), and `engine` runs the sessions of Collie agents and
//! DSH bridges over it: polling, intents and their journal (at most once), the observer and the
//! recording (docs/ENGINE.md).

pub(crate) use collie_wire::{dsh_wire, out, wire};

pub mod engine;
pub mod transport;
