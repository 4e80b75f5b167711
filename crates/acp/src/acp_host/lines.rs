//! Lines from an agent's stdout and stderr, read with a cap, so an agent that never ends a line
//! (a hung encoder, a binary dump, a hostile program) cannot make the host hold more than the cap
//! of it (docs/ACP.md, "Failures, in plain words"). By hand over `fill_buf`/`consume`: tokio's
//! `read_line` and `lines()` grow their buffer until the newline comes, however far away it is.

use tokio::io::{AsyncBufRead, AsyncBufReadExt};

/// The longest line an agent may write on its stdout: one JSON-RPC message (ACP stdio
/// transport: one message a line). 64 MiB is eight times the largest reply the durable wire
/// carries (`limits::MAX_ITEMS_REPLY`, 8 MiB): a `session/load` reply or a tool call carrying a
/// whole generated file fits with room to spare, since the host cuts what it shows itself
/// (SPEC L). A line past it is no message the host could use, so the agent is stopped.
pub(crate) const MAX_STDOUT_LINE: usize = 64 * 1024 * 1024;

/// The longest stderr line kept: longer ones are cut here and the rest of the line is passed
/// over. 64 KiB is what the `agent-client-protocol` crate (5.2) kept when it read stderr; the
/// log takes 1 KiB of a line anyway (`text::log_line`).
pub(crate) const MAX_STDERR_LINE: usize = 64 * 1024;

/// [`MAX_STDOUT_LINE`] in the words of a pane's notice.
pub(crate) fn stdout_cap_words() -> String {
    format!("{} MiB", MAX_STDOUT_LINE / (1024 * 1024))
}

/// What one read gave.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Read {
    /// A line is in the buffer, without its `\n` (and a `\r` before it); the last line of the
    /// stream may have none.
    Line,
    /// The line ran past the cap: the buffer holds its first `cap` bytes at most, and the
    /// reader stands somewhere inside the line.
    TooLong,
    /// The stream ended with nothing more to read.
    End,
}

/// Reads one line into `line` (emptied first), holding at most `cap` bytes of it: a line of
/// exactly `cap` bytes is read whole.
pub(crate) async fn read_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    line: &mut Vec<u8>,
    cap: usize,
) -> std::io::Result<Read> {
    line.clear();
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(if line.is_empty() {
                Read::End
            } else {
                strip_cr(line);
                Read::Line
            });
        }
        let (part, end) = match available.iter().position(|b| *b == b'\n') {
            Some(at) => (&available[..at], Some(at + 1)),
            None => (available, None),
        };
        // A `\r` that ends the line is not part of it, so it may sit one past the cap.
        let counted = match end {
            Some(_) if part.last() == Some(&b'\r') => part.len() - 1,
            _ => part.len(),
        };
        if line.len() + counted > cap {
            let room = cap - line.len();
            line.extend_from_slice(&part[..room]);
            reader.consume(room);
            return Ok(Read::TooLong);
        }
        line.extend_from_slice(part);
        let used = end.unwrap_or(part.len());
        reader.consume(used);
        if end.is_some() {
            strip_cr(line);
            return Ok(Read::Line);
        }
    }
}

/// Passes over the rest of a line, holding none of it; false when the stream ended first.
pub(crate) async fn skip_line<R: AsyncBufRead + Unpin>(reader: &mut R) -> std::io::Result<bool> {
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(false);
        }
        match available.iter().position(|b| *b == b'\n') {
            Some(at) => {
                reader.consume(at + 1);
                return Ok(true);
            }
            None => {
                let all = available.len();
                reader.consume(all);
            }
        }
    }
}

fn strip_cr(line: &mut Vec<u8>) {
    if line.last() == Some(&b'\r') {
        line.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::pin::Pin;
    use std::task::{Context, Poll};
    use tokio::io::{AsyncRead, BufReader, ReadBuf};

    /// A stream of `a` that never ends, and counts what was read of it.
    struct Endless {
        given: usize,
    }

    impl AsyncRead for Endless {
        fn poll_read(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
            buf: &mut ReadBuf<'_>,
        ) -> Poll<std::io::Result<()>> {
            let n = buf.remaining();
            buf.put_slice(&vec![b'a'; n]);
            self.given += n;
            Poll::Ready(Ok(()))
        }
    }

    #[tokio::test]
    async fn an_endless_line_stops_at_the_cap_and_holds_no_more() {
        let cap = 1024 * 1024;
        let mut reader = BufReader::with_capacity(8 * 1024, Endless { given: 0 });
        let mut line = Vec::new();
        let read = read_line(&mut reader, &mut line, cap).await.expect("reads");
        assert_eq!(read, Read::TooLong);
        assert_eq!(line.len(), cap);
        assert!(line.capacity() <= 2 * cap, "{}", line.capacity());
        // What was taken from the stream is the cap and at most one buffer more.
        assert!(reader.get_ref().given <= cap + 8 * 1024);
    }

    #[tokio::test]
    async fn a_line_exactly_at_the_cap_is_read_whole_and_one_past_it_is_not() {
        let cap = 10_000;
        let exact = format!("{}\r\n{}\nlast", "x".repeat(cap), "y".repeat(cap + 1));
        // A small buffer, so the line arrives in many pieces.
        let mut reader = BufReader::with_capacity(7, exact.as_bytes());
        let mut line = Vec::new();
        assert_eq!(
            read_line(&mut reader, &mut line, cap).await.expect("reads"),
            Read::Line
        );
        assert_eq!(line, "x".repeat(cap).as_bytes());
        assert_eq!(
            read_line(&mut reader, &mut line, cap).await.expect("reads"),
            Read::TooLong
        );
        assert_eq!(line.len(), cap);
        assert!(skip_line(&mut reader).await.expect("skips"));
        assert_eq!(
            read_line(&mut reader, &mut line, cap).await.expect("reads"),
            Read::Line
        );
        assert_eq!(line, b"last");
        assert_eq!(
            read_line(&mut reader, &mut line, cap).await.expect("reads"),
            Read::End
        );
    }

    #[test]
    fn the_stdout_cap_is_said_in_mebibytes() {
        assert_eq!(stdout_cap_words(), "64 MiB");
    }
}
