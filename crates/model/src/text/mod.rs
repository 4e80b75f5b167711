//! Text measured in terminal columns, without a terminal: widths, cutting, word wrap
//! (`wrap`), and the soft-wrapped rows of an edited text (`soft_wrap`). The glass's styled
//! lines (`look::wrap` in collie-tui) build on these.

pub mod soft_wrap;
pub mod wrap;
