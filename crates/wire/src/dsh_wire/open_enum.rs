//! String enums of the DSH bridge that keep unknown values, so a newer bridge never breaks the
//! decode of an older client (seed §3, SPEC V2).

/// The durable wire's open enum, shared: an unknown word is cleaned and cut to 64 bytes like
/// any string from the bridge (SPEC L1).
pub(crate) use crate::wire::kind::open_enum as dsh_open_enum;

/// Cleans an unknown word from the bridge: one line, no control or invisible characters, at
/// most 64 bytes (SPEC L1).
pub(crate) use crate::wire::kind::clean_unknown as clean_word;
