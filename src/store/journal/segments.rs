//! The segment files on disk: naming and listing them, reading their entries back at
//! start-up (cutting off a torn tail), and cutting or appending frames for replication.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::mpsc;

use crate::store::codec::{self, Entry, Frame};
use crate::store::{Problem, StoreError};

use super::marks::{Marked, Marks};

pub(super) const SEGMENT_SUFFIX: &str = ".log";

/// A segment file and the marks of the entries in it.
#[derive(Debug)]
pub struct Segment {
    pub(super) seq: u64,
    pub(super) path: PathBuf,
    pub(super) marks: Marks,
}

/// What to do with a torn frame at the end of the newest segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tail {
    /// Start-up: cut it off, with one warning naming the file and offset.
    Cut,
    /// While the server runs (a space reloads): the writer may be mid-append; stop there.
    Stop,
}

/// Reads every entry of every segment in `dir`, oldest first, passing each to `visit`
/// with its file and offset. A torn tail of the newest segment is handled as `tail` says;
/// any other damage, and any error `visit` returns, stops the read with the file and
/// offset named (and changes no file). Returns the segments with the marks of their
/// entries.
///
/// The frames are checked and decoded on a thread of their own, up to [`READ_AHEAD`]
/// entries ahead of `visit`, so that a start-up's replay of a long journal, one entry at
/// a time, does not wait for their decoding too.
pub fn read(
    dir: &Path,
    tail: Tail,
    mut visit: impl FnMut(Entry) -> Result<(), String>,
) -> Result<Vec<Segment>, StoreError> {
    let mut segments = list_segments(dir)?;
    let last = segments.len().saturating_sub(1);
    let paths: Vec<PathBuf> = segments.iter().map(|s| s.path.clone()).collect();
    std::thread::scope(|scope| {
        let (sender, frames) = mpsc::sync_channel(READ_AHEAD);
        scope.spawn(|| decode_segments(&paths, sender));
        for read in frames {
            let at = |i: usize, offset: usize, problem| {
                StoreError::at(&segments[i].path, offset as u64, problem)
            };
            match read {
                Read::Entry(i, offset, entry) => {
                    let mark = Marked::of(&entry);
                    visit(entry).map_err(|e| at(i, offset, Problem::Inconsistent(e)))?;
                    segments[i].marks.note(&mark);
                }
                Read::Torn(i, _) if i == last && tail == Tail::Stop => {}
                Read::Torn(i, offset) if i == last => {
                    log::warn!(
                        "{}: torn entry at offset {offset} (a crash during an append); cut off",
                        segments[i].path.display()
                    );
                    cut(&segments[i].path, offset as u64)?;
                }
                Read::Torn(i, offset) => return Err(at(i, offset, Problem::Torn)),
                Read::Corrupt(i, offset, e) => return Err(at(i, offset, Problem::Corrupt(e))),
                Read::Failed(i, e) => {
                    return Err(StoreError::new(&segments[i].path, Problem::Io(e)))
                }
            }
        }
        Ok(segments)
    })
}

/// How many decoded entries [`read`] holds at most, waiting for their visit.
const READ_AHEAD: usize = 1024;

/// What the decoding thread of [`read`] found, by segment (its place in the list) and
/// offset. A read ends after anything but an entry.
enum Read {
    Entry(usize, usize, Entry),
    Torn(usize, usize),
    Corrupt(usize, usize, codec::CodecError),
    Failed(usize, std::io::Error),
}

/// Decodes the frames of the segment files `paths` in order into `sender`, until one is
/// not an entry or the receiver is gone.
fn decode_segments(paths: &[PathBuf], sender: mpsc::SyncSender<Read>) {
    for (i, path) in paths.iter().enumerate() {
        let bytes = match fs::read(path) {
            Ok(bytes) => bytes,
            Err(e) => {
                let _ = sender.send(Read::Failed(i, e));
                return;
            }
        };
        let mut offset = 0;
        while offset < bytes.len() {
            let (read, next) = match codec::read_frame(&bytes, offset) {
                Frame::Entry { entry, end } => (Read::Entry(i, offset, entry), Some(end)),
                Frame::Torn => (Read::Torn(i, offset), None),
                Frame::Corrupt(e) => (Read::Corrupt(i, offset, e), None),
            };
            if sender.send(read).is_err() {
                return;
            }
            match next {
                Some(end) => offset = end,
                None => return,
            }
        }
    }
}

/// The sequence number of a segment file named `name` (`<seq>.log`, digits only).
pub(super) fn segment_seq(name: &str) -> Option<u64> {
    name.strip_suffix(SEGMENT_SUFFIX)
        .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|n| n.parse().ok())
}

/// Whether `name` is a segment file's (`<seq>.log`).
pub fn is_segment_name(name: &str) -> bool {
    segment_seq(name).is_some()
}

/// The segment files of `dir` in order, creating `dir` if it does not exist. Other names
/// are skipped (start-up warned about them).
pub(super) fn list_segments(dir: &Path) -> Result<Vec<Segment>, StoreError> {
    crate::store::create_private_dirs(dir).map_err(|e| StoreError::new(dir, Problem::Io(e)))?;
    let mut segments = Vec::new();
    for entry in fs::read_dir(dir).map_err(|e| StoreError::new(dir, Problem::Io(e)))? {
        let entry = entry.map_err(|e| StoreError::new(dir, Problem::Io(e)))?;
        let seq = entry.file_name().to_str().and_then(segment_seq);
        if let (Some(seq), true) = (seq, entry.file_type().is_ok_and(|t| t.is_file())) {
            segments.push(Segment {
                seq,
                path: entry.path(),
                marks: Marks::default(),
            });
        }
    }
    segments.sort_by_key(|s| s.seq);
    Ok(segments)
}

/// Cuts the journal in `dir` back to `offset` of segment `segment` (segment 0: every
/// segment goes): later segments are deleted and that one is cut. Returns the entries cut
/// off, for the log. Used by the catch-up with the stream (§16) before recovery.
pub fn cut_back(dir: &Path, segment: u64, offset: u64) -> Result<Vec<Entry>, StoreError> {
    let mut dropped = Vec::new();
    for found in list_segments(dir)?.into_iter().filter(|s| s.seq >= segment) {
        let bytes =
            fs::read(&found.path).map_err(|e| StoreError::new(&found.path, Problem::Io(e)))?;
        let keep = if found.seq == segment { offset } else { 0 } as usize;
        let mut at = keep.min(bytes.len());
        while at < bytes.len() {
            match codec::read_frame(&bytes, at) {
                Frame::Entry { entry, end } => {
                    dropped.push(entry);
                    at = end;
                }
                _ => break,
            }
        }
        if found.seq == segment {
            cut(&found.path, keep as u64)?;
        } else {
            fs::remove_file(&found.path)
                .map_err(|e| StoreError::new(&found.path, Problem::Io(e)))?;
        }
    }
    Ok(dropped)
}

/// Writes `frames` (whole entries, as the stream holds them) as a new segment after every
/// other one, synced; its number and length.
pub fn append_segment(dir: &Path, frames: &[u8]) -> Result<(u64, u64), StoreError> {
    let seq = list_segments(dir)?.last().map_or(1, |s| s.seq + 1);
    let path = dir.join(format!("{seq:020}{SEGMENT_SUFFIX}"));
    OpenOptions::new()
        .create_new(true)
        .write(true)
        .mode(0o600)
        .open(&path)
        .and_then(|mut file| {
            file.write_all(frames)?;
            file.sync_all()?;
            File::open(dir)?.sync_all()
        })
        .map_err(|e| StoreError::new(&path, Problem::Io(e)))?;
    Ok((seq, frames.len() as u64))
}

/// Cuts `path` to `len` bytes, durably.
fn cut(path: &Path, len: u64) -> Result<(), StoreError> {
    OpenOptions::new()
        .write(true)
        .open(path)
        .and_then(|file| {
            file.set_len(len)?;
            file.sync_all()
        })
        .map_err(|e| StoreError::new(path, Problem::Io(e)))
}
