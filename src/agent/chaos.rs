//! Chaos for the ask lifecycle (`collie-phone agent --chaos SPEC`): the reference agent fails
//! now and then on purpose, so every failure path of a client can be watched.

/// What goes wrong, and how often. The default is nothing.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Chaos {}

impl Chaos {
    /// Reads a spec such as `drop-after-apply=0.1,delay=0.05:3s`.
    pub fn parse(text: &str) -> Result<Self, String> {
        if text.trim().is_empty() {
            Ok(Self::default())
        } else {
            Err(format!("--chaos {text}: not understood"))
        }
    }
}
