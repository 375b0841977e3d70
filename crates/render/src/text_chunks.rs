//! A text held in the chunks it was given as (a config's frame lines and per-monitor parts),
//! read where it lies, never laid end to end as a whole: what the gzip of config Secrets and
//! their segments (`gzip`, `segments`) both read.

use std::ops::Range;

pub(crate) struct ChunkText<'c> {
    /// The non-empty chunks, in order.
    pub(crate) chunks: Vec<&'c [u8]>,
    /// Where each of `chunks` starts in the text.
    pub(crate) starts: Vec<usize>,
    pub(crate) len: usize,
}

impl<'c> ChunkText<'c> {
    pub(crate) fn new(chunks: &[&'c str]) -> Self {
        let chunks: Vec<&[u8]> = chunks
            .iter()
            .map(|c| c.as_bytes())
            .filter(|c| !c.is_empty())
            .collect();
        let mut len = 0;
        let starts = chunks
            .iter()
            .map(|c| {
                let start = len;
                len += c.len();
                start
            })
            .collect();
        ChunkText {
            chunks,
            starts,
            len,
        }
    }

    pub(crate) fn copy(&self, range: Range<usize>) -> Vec<u8> {
        let mut out = Vec::with_capacity(range.len());
        for slice in self.slices(range) {
            out.extend_from_slice(slice);
        }
        out
    }

    /// The index of the chunk holding byte `pos` (below the text's length).
    pub(crate) fn chunk_of(&self, pos: usize) -> usize {
        self.starts.partition_point(|&s| s <= pos).saturating_sub(1)
    }

    pub(crate) fn byte(&self, pos: usize) -> u8 {
        let i = self.chunk_of(pos);
        self.chunks[i][pos - self.starts[i]]
    }

    /// The pieces of the chunks that make up `range` of the text, in order.
    pub(crate) fn slices(&self, range: Range<usize>) -> impl Iterator<Item = &'c [u8]> + '_ {
        let first = self.chunk_of(range.start);
        self.chunks[first..]
            .iter()
            .zip(&self.starts[first..])
            .take_while(move |(_, start)| **start < range.end)
            .filter_map(move |(chunk, &start)| {
                let from = range.start.saturating_sub(start).min(chunk.len());
                let to = (range.end - start).min(chunk.len());
                (from < to).then(|| &chunk[from..to])
            })
    }

    /// Where the first newline at or after `from` is.
    pub(crate) fn newline_from(&self, from: usize) -> Option<usize> {
        if from >= self.len {
            return None;
        }
        let first = self.chunk_of(from);
        self.chunks[first..]
            .iter()
            .zip(&self.starts[first..])
            .find_map(|(chunk, &start)| {
                let skip = from.saturating_sub(start);
                memchr::memchr(b'\n', &chunk[skip..]).map(|i| start + skip + i)
            })
    }

    /// Where the last newline in `range` is.
    pub(crate) fn newline_before(&self, range: Range<usize>) -> Option<usize> {
        if range.is_empty() {
            return None;
        }
        let last = self.chunk_of(range.end - 1);
        (0..=last).rev().find_map(|i| {
            let start = self.starts[i];
            if start + self.chunks[i].len() <= range.start {
                return Some(None);
            }
            let from = range.start.saturating_sub(start);
            let to = (range.end - start).min(self.chunks[i].len());
            memchr::memrchr(b'\n', &self.chunks[i][from..to]).map(|j| Some(start + from + j))
        })?
    }

    /// The end of the line starting at `start`: past its newline, or the text's end.
    pub(crate) fn line_end(&self, start: usize) -> usize {
        self.newline_from(start).map_or(self.len, |i| i + 1)
    }

    /// The end of the line holding byte `start` (just past its newline), `None` when no
    /// newline follows.
    pub(crate) fn line_end_after(&self, start: usize) -> Option<usize> {
        if start >= self.len {
            return None;
        }
        let first = self.chunk_of(start);
        let mut from = start - self.starts[first];
        for (chunk, chunk_start) in self.chunks[first..].iter().zip(&self.starts[first..]) {
            if let Some(i) = memchr::memchr(b'\n', &chunk[from..]) {
                return Some(chunk_start + from + i + 1);
            }
            from = 0;
        }
        None
    }

    /// Bytes `range` of the text: borrowed from its chunk when one chunk holds them all,
    /// copied into `buffer` otherwise.
    pub(crate) fn bytes<'b>(&'b self, range: Range<usize>, buffer: &'b mut Vec<u8>) -> &'b [u8] {
        if range.is_empty() {
            return &[];
        }
        let first = self.chunk_of(range.start);
        let offset = range.start - self.starts[first];
        if let Some(within) = self.chunks[first].get(offset..offset + range.len()) {
            return within;
        }
        buffer.clear();
        buffer.reserve(range.len());
        let mut from = offset;
        for chunk in &self.chunks[first..] {
            let wanted = range.len() - buffer.len();
            let piece = &chunk[from..];
            buffer.extend_from_slice(&piece[..wanted.min(piece.len())]);
            if buffer.len() == range.len() {
                break;
            }
            from = 0;
        }
        buffer
    }
}
