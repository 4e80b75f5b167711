//! The framing of `GET /events` (seed §2, SPEC D3/D4): `event: bridge` + `data: {json}` frames
//! separated by a blank line, `: keep-alive` comment lines, no SSE ids (resume by `sinceSeq`).
//! Re-exported by `dsh_wire`.

/// What an SSE stream delivered, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum SseItem {
    /// A frame with its event name (`bridge`, or another name this program ignores) and its
    /// data lines joined by `\n`.
    Frame { event: String, data: String },
    /// A comment line, e.g. `keep-alive`.
    Comment(String),
}

/// An incremental reader of `text/event-stream` bytes, as the SSE standard frames them: lines
/// end with LF, CRLF or CR; a blank line ends a frame; `:` starts a comment. A frame or line
/// longer than `max_frame_bytes` is dropped whole, so a hostile stream cannot grow memory.
#[derive(Debug)]
pub struct SseReader {
    pending: Vec<u8>,
    event: String,
    data: Vec<String>,
    frame_bytes: usize,
    max_frame_bytes: usize,
    skipping: bool,
    last_was_cr: bool,
}

impl SseReader {
    pub fn new(max_frame_bytes: usize) -> Self {
        Self {
            pending: Vec::new(),
            event: String::new(),
            data: Vec::new(),
            frame_bytes: 0,
            max_frame_bytes,
            skipping: false,
            last_was_cr: false,
        }
    }

    /// Feeds bytes; returns the items they completed.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<SseItem> {
        let mut items = Vec::new();
        for &byte in bytes {
            if byte == b'\n' && self.last_was_cr {
                self.last_was_cr = false;
                continue;
            }
            self.last_was_cr = byte == b'\r';
            if byte == b'\n' || byte == b'\r' {
                let line = std::mem::take(&mut self.pending);
                self.line(&line, &mut items);
            } else if self.pending.len() < self.max_frame_bytes {
                self.pending.push(byte);
            } else {
                self.skipping = true;
            }
        }
        items
    }

    fn line(&mut self, line: &[u8], items: &mut Vec<SseItem>) {
        if line.is_empty() {
            let data = std::mem::take(&mut self.data);
            let event = std::mem::take(&mut self.event);
            let skipped = std::mem::replace(&mut self.skipping, false);
            self.frame_bytes = 0;
            if !data.is_empty() && !skipped {
                items.push(SseItem::Frame {
                    event: if event.is_empty() {
                        "message".to_string()
                    } else {
                        event
                    },
                    data: data.join("\n"),
                });
            }
            return;
        }
        self.frame_bytes += line.len();
        if self.frame_bytes > self.max_frame_bytes {
            self.skipping = true;
            self.data.clear();
            return;
        }
        let text = String::from_utf8_lossy(line);
        if let Some(comment) = text.strip_prefix(':') {
            items.push(SseItem::Comment(comment.trim_start().to_string()));
            return;
        }
        let (field, value) = match text.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (text.as_ref(), ""),
        };
        match field {
            "event" => self.event = value.to_string(),
            "data" => self.data.push(value.to_string()),
            // `id` and `retry` are not used by the bridge (it sends no ids, seed GET /events);
            // unknown fields are ignored as the SSE standard says.
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn d3_frames_and_keep_alives_split_anywhere() {
        let stream = b": keep-alive\n\nevent: bridge\ndata: {\"a\":1}\n\nevent: bridge\r\ndata: x\r\ndata: y\r\n\r\n";
        for split in 0..stream.len() {
            let mut reader = SseReader::new(1024);
            let mut items = reader.feed(&stream[..split]);
            items.extend(reader.feed(&stream[split..]));
            assert_eq!(
                items,
                vec![
                    SseItem::Comment("keep-alive".into()),
                    SseItem::Frame {
                        event: "bridge".into(),
                        data: "{\"a\":1}".into()
                    },
                    SseItem::Frame {
                        event: "bridge".into(),
                        data: "x\ny".into()
                    },
                ],
                "split at {split}"
            );
        }
    }

    #[test]
    fn l1_an_oversized_frame_is_dropped_whole() {
        let mut reader = SseReader::new(32);
        let mut stream = b"event: bridge\ndata: ".to_vec();
        stream.extend(std::iter::repeat_n(b'x', 100));
        stream.extend(b"\n\nevent: bridge\ndata: ok\n\n");
        let items = reader.feed(&stream);
        assert_eq!(
            items,
            vec![SseItem::Frame {
                event: "bridge".into(),
                data: "ok".into()
            }]
        );
    }
}
