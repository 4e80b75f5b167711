//! The wire: every shape that crosses between Collie and a durable agent, with the limits of
//! SPEC L enforced on decode. Shared by the reference agent and the engine; no I/O here.
//! The contract these types follow is docs/WIRE.md.

pub(crate) mod actions;
pub mod answer_check;
pub(crate) mod ask;
pub mod ask_body;
pub mod decode;
pub mod etag;
pub(crate) mod events;
pub mod form_check;
pub(crate) mod hello;
pub(crate) mod history;
pub(crate) mod id;
pub(crate) mod item;
pub(crate) mod kind;
pub mod limits;
pub mod paths;
pub mod recording;
pub mod sanitize;
pub mod settings;
pub mod shown;
pub(crate) mod snapshot;
pub mod time;
pub mod tool_input;
pub(crate) mod usage;

pub use self::time::Stamp;
pub use actions::*;
pub use answer_check::{AnswerProblem, accepts};
pub use ask::*;
pub use ask_body::{AskBody, DESKTOP_ASK_KIND};
pub use decode::{DecodeError, Decoded, Sanitize, decode};
pub use etag::*;
pub use events::*;
pub use hello::*;
pub use history::*;
pub use id::*;
pub use item::*;
pub use sanitize::{Change, ChangeKind, Report};
pub use settings::*;
pub use snapshot::*;
pub use usage::{Cost, Usage};
