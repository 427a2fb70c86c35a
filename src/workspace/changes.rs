//! Hearing a workspace change without re-reading it: an inotify watch on every directory the
//! last walk entered (never an ignored or private one), read without blocking when a call
//! starts. The kernel queues an event while the change is made, so a change finished before a
//! call is heard by that call; nothing waits, polls or re-reads.
//!
//! What is heard is one of: nothing; the paths of files created, written, removed, renamed or
//! re-stamped in a walked directory; or everything — the kernel's queue overflowed, a directory
//! was created, removed or renamed, an ignore file changed, a watched directory is gone — after
//! which the cache walks the whole root again. Where inotify is missing (another platform, the
//! watch limit reached) [`Changes::start`] or [`Changes::arm`] fails and the cache checks
//! stamps instead.

use std::collections::BTreeSet;
use std::path::PathBuf;

/// What changed since the last look.
#[derive(Debug, Default, PartialEq, Eq)]
pub enum Heard {
    /// Nothing.
    #[default]
    Nothing,
    /// These files (absolute paths in walked directories) may have changed.
    Files(BTreeSet<PathBuf>),
    /// Anything may have changed: walk again.
    Everything,
}

/// More files heard at once than this (a checkout, say) are cheaper to find by one walk.
const MAX_FILES_HEARD: usize = 4096;

impl Heard {
    fn file(&mut self, path: PathBuf) {
        match self {
            Self::Nothing => *self = Self::Files(BTreeSet::from([path])),
            Self::Files(paths) if paths.len() >= MAX_FILES_HEARD => *self = Self::Everything,
            Self::Files(paths) => {
                paths.insert(path);
            }
            Self::Everything => {}
        }
    }
}

#[cfg(target_os = "linux")]
pub use linux::Changes;

#[cfg(not(target_os = "linux"))]
pub use other::Changes;

#[cfg(target_os = "linux")]
mod linux {
    use std::collections::HashMap;
    use std::ffi::OsStr;
    use std::mem::MaybeUninit;
    use std::os::fd::OwnedFd;
    use std::os::unix::ffi::OsStrExt as _;
    use std::path::{Path, PathBuf};

    use rustix::fs::inotify::{self, CreateFlags, ReadFlags, WatchFlags};

    use super::super::admission::{DirStamp, is_sensitive_name};
    use super::Heard;

    /// A directory's entries changing (never opens or reads: the index's own reads are silent).
    const DIR: WatchFlags = WatchFlags::CREATE
        .union(WatchFlags::DELETE)
        .union(WatchFlags::MODIFY)
        .union(WatchFlags::CLOSE_WRITE)
        .union(WatchFlags::ATTRIB)
        .union(WatchFlags::MOVED_FROM)
        .union(WatchFlags::MOVED_TO)
        .union(WatchFlags::DELETE_SELF)
        .union(WatchFlags::MOVE_SELF)
        .union(WatchFlags::ONLYDIR)
        .union(WatchFlags::DONT_FOLLOW)
        .union(WatchFlags::EXCL_UNLINK);
    /// One file (an ignore file outside the walked tree) changing.
    const FILE: WatchFlags = WatchFlags::MODIFY
        .union(WatchFlags::CLOSE_WRITE)
        .union(WatchFlags::ATTRIB)
        .union(WatchFlags::DELETE_SELF)
        .union(WatchFlags::MOVE_SELF)
        .union(WatchFlags::DONT_FOLLOW);

    /// How a watched path's events are read.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Role {
        /// A directory of the walk: its files' events are files heard.
        Walked,
        /// The root's `.git` directory: only `info` (where `exclude` lives) matters.
        GitDir,
        /// A single file (`.git/info/exclude`, a `.git` file): any event is everything.
        Exact,
    }

    /// The watches of one workspace.
    #[derive(Debug)]
    pub struct Changes {
        fd: OwnedFd,
        by_wd: HashMap<i32, (PathBuf, Role)>,
        by_path: HashMap<PathBuf, i32>,
        heard: Heard,
    }

    impl Changes {
        /// A watcher with nothing watched yet; `None` without inotify.
        pub fn start() -> Option<Self> {
            let fd = inotify::init(CreateFlags::CLOEXEC | CreateFlags::NONBLOCK).ok()?;
            Some(Self {
                fd,
                by_wd: HashMap::new(),
                by_path: HashMap::new(),
                heard: Heard::Nothing,
            })
        }

        /// Watches exactly `dirs` (a walk's directories and out-of-tree ignore files under
        /// `root`) from now on. False when one cannot be watched (the watch limit): the caller
        /// then stops relying on this watcher.
        pub fn arm(&mut self, root: &Path, dirs: &[DirStamp]) -> bool {
            let git = root.join(".git");
            let mut keep: HashMap<PathBuf, i32> = HashMap::with_capacity(dirs.len());
            for dir in dirs {
                let role = if dir.path == git && dir.path.is_dir() {
                    Role::GitDir
                } else if dir.path == git || dir.path.starts_with(&git) {
                    Role::Exact
                } else {
                    Role::Walked
                };
                let flags = match role {
                    Role::Walked | Role::GitDir => DIR,
                    Role::Exact => FILE,
                };
                let Ok(wd) = inotify::add_watch(&self.fd, dir.path.as_path(), flags) else {
                    return false;
                };
                self.by_wd.insert(wd, (dir.path.clone(), role));
                keep.insert(dir.path.clone(), wd);
            }
            for (path, wd) in std::mem::replace(&mut self.by_path, keep) {
                if !self.by_path.contains_key(&path) {
                    self.by_wd.remove(&wd);
                    let _ = inotify::remove_watch(&self.fd, wd);
                }
            }
            true
        }

        /// Marks everything changed (a walk could not trust what it saw).
        pub fn distrust(&mut self) {
            self.heard = Heard::Everything;
        }

        /// What was heard since the last call, reading every queued event without blocking.
        pub fn take(&mut self) -> Heard {
            let mut buf = [MaybeUninit::<u8>::uninit(); 16 * 1024];
            let mut reader = inotify::Reader::new(&self.fd, &mut buf);
            loop {
                let event = match reader.next() {
                    Ok(event) => event,
                    Err(rustix::io::Errno::INTR) => continue,
                    Err(rustix::io::Errno::AGAIN) => break,
                    // A read error other than "nothing queued": trust nothing.
                    Err(_) => {
                        self.heard = Heard::Everything;
                        break;
                    }
                };
                let flags = event.events();
                let name = event.file_name().map(|n| OsStr::from_bytes(n.to_bytes()));
                if flags.contains(ReadFlags::QUEUE_OVERFLOW) {
                    self.heard = Heard::Everything;
                    continue;
                }
                let Some((path, role)) = self.by_wd.get(&event.wd()) else {
                    // A watch removed by `arm`: its last events no longer matter.
                    continue;
                };
                match classify(*role, flags, name) {
                    Some(Verdict::File(name)) => self.heard.file(path.join(name)),
                    Some(Verdict::Everything) => self.heard = Heard::Everything,
                    None => {}
                }
            }
            std::mem::take(&mut self.heard)
        }
    }

    enum Verdict<'a> {
        File(&'a OsStr),
        Everything,
    }

    /// What one event means for the index.
    fn classify(role: Role, flags: ReadFlags, name: Option<&OsStr>) -> Option<Verdict<'_>> {
        let gone = ReadFlags::DELETE_SELF | ReadFlags::MOVE_SELF | ReadFlags::IGNORED;
        if flags.intersects(gone | ReadFlags::UNMOUNT) {
            return Some(Verdict::Everything);
        }
        match role {
            Role::Exact => Some(Verdict::Everything),
            Role::GitDir => (name == Some(OsStr::new("info"))).then_some(Verdict::Everything),
            Role::Walked => {
                let Some(name) = name else {
                    // The directory itself (its permissions, say).
                    return Some(Verdict::Everything);
                };
                let text = name.to_str()?;
                if flags.contains(ReadFlags::ISDIR)
                    || matches!(text, ".gitignore" | ".ignore" | ".git")
                {
                    return Some(Verdict::Everything);
                }
                // A private or non-UTF-8 name is never admitted, so it never matters.
                (!is_sensitive_name(text)).then_some(Verdict::File(name))
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod other {
    use std::path::Path;

    use super::super::admission::DirStamp;
    use super::Heard;

    /// No notification here: the cache checks stamps.
    #[derive(Debug)]
    pub struct Changes;

    impl Changes {
        /// Always `None`: no notification on this platform.
        pub fn start() -> Option<Self> {
            None
        }

        /// Unreachable without [`Changes::start`].
        pub fn arm(&mut self, _root: &Path, _dirs: &[DirStamp]) -> bool {
            false
        }

        /// Unreachable without [`Changes::start`].
        pub fn distrust(&mut self) {}

        /// Unreachable without [`Changes::start`].
        pub fn take(&mut self) -> Heard {
            Heard::Everything
        }
    }
}
