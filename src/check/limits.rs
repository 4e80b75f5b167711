//! SPEC L: the limits on what the agent sends, as seen on the wire: filled by their own author.

use super::Rule;

pub(super) const RULES: &[Rule] = &[];
