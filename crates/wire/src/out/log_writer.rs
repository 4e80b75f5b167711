//! The log's writer: every formatted log line passes through [`super::text`] before it reaches
//! stderr or the log file, so an agent's words quoted in a log field (`%` Display fields are
//! written raw by tracing) cannot steer the terminal that tails the log, and no token lands in
//! the file. Colours are therefore off: the writer cannot tell the program's escapes from an
//! agent's.

use std::io::{self, Write};

use tracing_subscriber::fmt::MakeWriter;

/// Wraps a [`MakeWriter`] so each writer it makes cleans what it writes.
#[derive(Debug, Clone)]
pub struct CleanMakeWriter<M>(pub M);

impl<'a, M: MakeWriter<'a>> MakeWriter<'a> for CleanMakeWriter<M> {
    type Writer = CleanWriter<M::Writer>;

    fn make_writer(&'a self) -> Self::Writer {
        CleanWriter(self.0.make_writer())
    }
}

/// A writer that cleans and scrubs each buffer before passing it on. tracing's formatter
/// writes one whole line per call, so a character is never split across two calls; if one
/// were, its halves would become U+FFFD, never a control.
#[derive(Debug)]
pub struct CleanWriter<W>(pub W);

impl<W: Write> Write for CleanWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        self.0.write_all(super::text(&text).as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_line_leaves_clean() {
        let mut out = CleanWriter(Vec::new());
        out.write_all(b"agent said \x1b]0;PWNED\x07 \xe2\x80\xae\xc2\x9b2J\n")
            .expect("write");
        assert_eq!(
            String::from_utf8(out.0).expect("utf8"),
            "agent said ]0;PWNED 2J\n"
        );
    }
}
