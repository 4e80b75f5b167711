//! The A rules (asks and answers) as seen on the wire: filled by their own author.

use super::Rule;

pub(super) const RULES: &[Rule] = &[];
