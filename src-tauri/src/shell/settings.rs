//! The Settings dialog's backend: the line-index cache (where, how big, clear).
//! Only the cache's own files are touched: `index-<16 hex>.json` and their
//! `.tmp-<pid>` leftovers, in the cache folder; nothing else is read or deleted.

use std::path::Path;

use super::wire::IndexCacheInfo;
use crate::wire::{Bytes, ErrorCode, ErrorDto};

/// Whether `name` is one of the cache's files (an index, or a save cut short).
fn is_cache_file(name: &str) -> bool {
    let Some(rest) = name.strip_prefix("index-") else { return false };
    let (hash, tail) = rest.split_at(rest.len().min(16));
    hash.len() == 16
        && hash.bytes().all(|b| b.is_ascii_hexdigit())
        && (tail == ".json" || tail.strip_prefix(".tmp-").is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())))
}

/// The cache files in `dir` (regular files only: a link or folder of that name is not ours), with sizes.
fn cache_files(dir: &Path) -> Vec<(std::path::PathBuf, u64)> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    entries
        .flatten()
        .filter(|e| e.file_name().to_str().is_some_and(is_cache_file))
        .filter_map(|e| {
            let meta = std::fs::symlink_metadata(e.path()).ok()?;
            meta.is_file().then(|| (e.path(), meta.len()))
        })
        .collect()
}

pub fn cache_info(dir: Option<&Path>) -> IndexCacheInfo {
    let files = dir.map(cache_files).unwrap_or_default();
    IndexCacheInfo {
        path: dir.map(|d| d.display().to_string()),
        files: u32::try_from(files.len()).unwrap_or(u32::MAX),
        bytes: Bytes(files.iter().map(|(_, n)| n).sum()),
    }
}

/// Delete the cache's files; the next open of each store counts its lines afresh.
pub fn clear_cache(dir: Option<&Path>) -> Result<IndexCacheInfo, ErrorDto> {
    let Some(dir) = dir else { return Ok(cache_info(None)) };
    for (path, _) in cache_files(dir) {
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(ErrorDto::new(
                    ErrorCode::Internal,
                    format!("could not delete {}: {e}; check the folder's permissions", path.display()),
                ))
            }
        }
    }
    Ok(cache_info(Some(dir)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_cache_files_are_counted_and_cleared() {
        let dir = tempfile::tempdir().expect("test setup");
        let d = dir.path();
        std::fs::write(d.join("index-0123456789abcdef.json"), b"{}").expect("test setup");
        std::fs::write(d.join("index-0123456789abcdef.tmp-42"), b"xyz").expect("test setup");
        // Not ours: other names, a folder and a link with our name.
        std::fs::write(d.join("notes.json"), b"keep").expect("test setup");
        std::fs::write(d.join("index-0123.json"), b"keep").expect("test setup");
        std::fs::create_dir(d.join("index-aaaaaaaaaaaaaaaa.json")).expect("test setup");
        let outside = tempfile::NamedTempFile::new().expect("test setup");
        #[cfg(unix)]
        std::os::unix::fs::symlink(outside.path(), d.join("index-bbbbbbbbbbbbbbbb.json")).expect("test setup");

        let info = cache_info(Some(d));
        assert_eq!((info.files, info.bytes.0), (2, 5));
        let after = clear_cache(Some(d)).expect("test setup");
        assert_eq!((after.files, after.bytes.0), (0, 0));
        assert!(d.join("notes.json").exists() && d.join("index-0123.json").exists() && d.join("index-aaaaaaaaaaaaaaaa.json").is_dir());
        assert!(outside.path().exists(), "a link's target outside the cache is never touched");
        assert!(!d.join("index-0123456789abcdef.json").exists());
    }

    #[test]
    fn no_cache_folder_is_an_empty_cache() {
        assert_eq!(cache_info(None).files, 0);
        assert!(clear_cache(None).is_ok());
        let missing = tempfile::tempdir().expect("test setup").path().join("gone");
        assert_eq!(cache_info(Some(&missing)).files, 0);
    }
}
