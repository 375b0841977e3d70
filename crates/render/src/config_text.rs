//! An agent.yml text that is not necessarily laid out in one buffer.
//!
//! A cached metrics config is its frame (server, global, remote_write, instance settings)
//! with each instance's scrape jobs taken from the per-monitor parts the cache holds anyway
//! ([`crate::render_cache`]). At 10k ServiceMonitors that is 47 MB of text, which the
//! controller only cuts into segments and stores in Secrets, and
//! [`crate::segments::store`] does that from the pieces. So a [`ConfigText`]
//! keeps the pieces ([`ConfigText::chunks`]), and lays the text out only when someone reads it
//! ([`ConfigText::as_str`]: `render --config`, explain, tests), once.

use std::fmt;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

use crate::rejection::Rejection;

/// One monitor's jobs as YAML text, shared with the cache that keeps it, or why the monitor
/// was left out (it adds no text).
pub type RenderedPart = Arc<Result<String, Rejection>>;

/// An agent.yml: a whole `String`, or a frame with parts inserted.
#[derive(Clone)]
pub struct ConfigText {
    repr: Repr,
}

#[derive(Clone)]
enum Repr {
    Whole(String),
    Pieces {
        frame: String,
        pieces: Vec<Piece>,
        len: usize,
        /// The text laid out, the first time it is asked for.
        whole: OnceLock<String>,
    },
}

/// One chunk of a text: frame lines (`part` none), or the text of a cached `part`.
#[derive(Clone, Copy)]
pub struct Chunk<'t> {
    pub text: &'t str,
    pub part: Option<&'t RenderedPart>,
}

impl<'t> From<&'t str> for Chunk<'t> {
    fn from(text: &'t str) -> Chunk<'t> {
        Chunk { text, part: None }
    }
}

/// A run of frame lines or one part, in the order of the text.
#[derive(Clone)]
enum Piece {
    Frame(Range<usize>),
    Part(RenderedPart),
}

impl ConfigText {
    /// `frame` with every line for which `parts_of` gives parts replaced by their text
    /// (rejections and empty parts add nothing), in order; the other lines are kept.
    pub fn from_frame<'p>(
        frame: String,
        mut parts_of: impl FnMut(&str) -> Option<&'p [RenderedPart]>,
    ) -> ConfigText {
        let mut pieces = Vec::new();
        let mut len = 0;
        let mut line_start = 0;
        for line in frame.split_inclusive('\n') {
            let line_end = line_start + line.len();
            match parts_of(line) {
                Some(parts) => {
                    for part in parts {
                        // Rejected monitors and monitors without jobs add no piece.
                        if let Ok(text) = part.as_ref()
                            && !text.is_empty()
                        {
                            len += text.len();
                            pieces.push(Piece::Part(part.clone()));
                        }
                    }
                }
                None => {
                    len += line.len();
                    // Consecutive frame lines are one piece.
                    match pieces.last_mut() {
                        Some(Piece::Frame(run)) if run.end == line_start => run.end = line_end,
                        _ => pieces.push(Piece::Frame(line_start..line_end)),
                    }
                }
            }
            line_start = line_end;
        }
        ConfigText {
            repr: Repr::Pieces {
                frame,
                pieces,
                len,
                whole: OnceLock::new(),
            },
        }
    }

    /// The length of the text in bytes, without laying it out.
    pub fn len(&self) -> usize {
        match &self.repr {
            Repr::Whole(text) => text.len(),
            Repr::Pieces { len, .. } => *len,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The text as the pieces it is held in, in order: their concatenation is
    /// [`ConfigText::as_str`]. Some may be empty.
    pub fn chunks(&self) -> Vec<&str> {
        self.chunks_with_parts()
            .into_iter()
            .map(|c| c.text)
            .collect()
    }

    /// [`ConfigText::chunks`], each with the cached part it is the text of: a reader that
    /// keeps what it learnt of a part's text (`segments::SegmentCache`) finds it again by the
    /// part while it holds a clone of it, as a part's text never changes.
    pub fn chunks_with_parts(&self) -> Vec<Chunk<'_>> {
        match &self.repr {
            Repr::Whole(text) => vec![Chunk::from(text.as_str())],
            Repr::Pieces { frame, pieces, .. } => pieces
                .iter()
                .map(|piece| match piece {
                    // The ranges are whole lines of the frame, found by splitting it.
                    Piece::Frame(run) => Chunk::from(frame.get(run.clone()).unwrap_or_default()),
                    Piece::Part(part) => Chunk {
                        text: part.as_ref().as_ref().map_or("", String::as_str),
                        part: Some(part),
                    },
                })
                .collect(),
        }
    }

    /// The whole text, laid out on the first call (a copy of every piece) and kept.
    pub fn as_str(&self) -> &str {
        match &self.repr {
            Repr::Whole(text) => text,
            Repr::Pieces { whole, .. } => whole.get_or_init(|| self.chunks().concat()),
        }
    }

    /// Whether the text is held laid out in one buffer.
    #[cfg(test)]
    pub(crate) fn is_laid_out(&self) -> bool {
        match &self.repr {
            Repr::Whole(_) => true,
            Repr::Pieces { whole, .. } => whole.get().is_some(),
        }
    }
}

impl From<String> for ConfigText {
    fn from(text: String) -> ConfigText {
        ConfigText {
            repr: Repr::Whole(text),
        }
    }
}

impl PartialEq for ConfigText {
    fn eq(&self, other: &ConfigText) -> bool {
        self.len() == other.len() && self.as_str() == other.as_str()
    }
}

impl Eq for ConfigText {}

/// The text, as a `String` would show (laid out for it).
impl fmt::Debug for ConfigText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

/// The text, written piece by piece (not laid out for it).
impl fmt::Display for ConfigText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.chunks().into_iter().try_for_each(|c| f.write_str(c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input_ref::{InputRef, Kind};
    use crate::rejection::Reason;

    fn part(text: &str) -> RenderedPart {
        Arc::new(Ok(text.to_owned()))
    }

    #[test]
    fn the_pieces_are_the_frame_with_the_parts_in_place_of_their_lines() {
        let rejected: RenderedPart = Arc::new(Err(Rejection::new(
            InputRef::new(Kind::ServiceMonitor, "a", "broken"),
            Reason::InvalidRegex,
            None,
            "refused".to_owned(),
        )));
        let first = [
            part("  - job: a\n"),
            rejected,
            part(""),
            part("  - job: é\n"),
        ];
        let second = [part("  - job: c\n")];
        let frame = "metrics:\n  configs:\n  SLOT 0\n  other: 1\n  SLOT 1\n  SLOT 9\nend: true";
        let text = ConfigText::from_frame(frame.to_owned(), |line| match line.trim() {
            "SLOT 0" => Some(&first[..]),
            "SLOT 1" => Some(&second[..]),
            "SLOT 9" => Some(&[]),
            _ => None,
        });
        let expected =
            "metrics:\n  configs:\n  - job: a\n  - job: é\n  other: 1\n  - job: c\nend: true";
        assert!(!text.is_laid_out());
        assert_eq!(text.len(), expected.len());
        assert_eq!(text.to_string(), expected);
        let chunks = text.chunks();
        assert_eq!(chunks.len(), 6, "{chunks:?}");
        assert_eq!(chunks.concat(), expected);
        assert!(
            !text.is_laid_out(),
            "counting and writing leave it in pieces"
        );
        assert_eq!(text.as_str(), expected);
        assert!(text.is_laid_out());
        assert_eq!(text, ConfigText::from(expected.to_owned()));
        assert_eq!(format!("{text:?}"), format!("{expected:?}"));
    }

    #[test]
    fn a_whole_text_is_one_chunk() {
        let text = ConfigText::from("server: {}\n".to_owned());
        assert_eq!(text.chunks(), ["server: {}\n"]);
        assert_eq!(text.as_str(), "server: {}\n");
        let empty = ConfigText::from_frame(String::new(), |_| None);
        assert!(empty.is_empty());
        assert_eq!(empty.as_str(), "");
        assert_eq!(empty, ConfigText::from(String::new()));
    }
}
