//! Which kind of file system a store is on. O_APPEND is atomic between
//! processes on local file systems (ext4, XFS, btrfs, NTFS, APFS, tmpfs); on network
//! file systems (NFS, SMB/CIFS) each client computes the end of the file from
//! its own cache, so concurrent appends from different machines can overwrite
//! each other. There our producers take an exclusive lock around each append.
//!
//! FUSE file systems all have one `statfs` magic number, whether they serve a
//! local disk (ntfs-3g and exfat-fuse on a USB drive or a Windows partition,
//! mounted as `fuseblk`) or a remote one (sshfs, rclone, s3fs, glusterfs: type
//! `fuse.<name>`). On Linux the mount table tells them apart: a FUSE file
//! system whose data is a local block device is served by this machine's
//! kernel alone, so appends are as atomic as on ext4; any other FUSE file
//! system may be shared with other machines and is taken as network (appends
//! locked: slower, never wrong).

/// What kind of file system a path is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum FsKind {
    Local,
    /// A FUSE file system on a local block device (`fuseblk`: ntfs-3g,
    /// exfat-fuse, ...): local, O_APPEND atomic between processes. Linux only.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    LocalFuse,
    /// A network file system, by name (`nfs`, `smb`, `fuse.sshfs`, ...).
    Network(&'static str),
    /// Could not be told (Unix: `statfs` failed; Windows always tells).
    #[cfg_attr(windows, allow(dead_code))]
    Unknown,
}

impl FsKind {
    pub fn is_network(self) -> bool {
        matches!(self, FsKind::Network(_))
    }
}

/// The file system `path` is on (see the platform modules for how each tells).
pub fn filesystem_kind(path: &std::path::Path) -> FsKind {
    super::imp::filesystem_kind(path)
}

/// Linux: by `statfs`'s magic number, FUSE told apart by the mount table.
#[cfg(target_os = "linux")]
pub(super) fn linux_kind(path: &std::path::Path) -> FsKind {
    match rustix::fs::statfs(path) {
        // `f_type`'s integer type differs between architectures.
        #[allow(clippy::unnecessary_cast)]
        Ok(s) if magic32(s.f_type as i64) == FUSE_SUPER_MAGIC => fuse_kind(path),
        #[allow(clippy::unnecessary_cast)]
        Ok(s) => kind_of_magic(s.f_type as i64),
        Err(_) => FsKind::Unknown,
    }
}

/// A Windows path's kind, from its form alone: a UNC path (`\\server\share`,
/// or its verbatim forms `\\?\UNC\server\share` and `\\.\UNC\...`) is on
/// a network share; a verbatim or device path to a drive (`\\?\C:\...`, which
/// `canonicalize` returns for every local path) and a drive path are local.
/// A network drive mapped to a letter (`Z:`) reads as local here: the
/// Windows module asks `GetDriveTypeW` about the drive after this.
#[cfg(any(windows, test))]
pub(super) fn kind_of_windows_path(path: &str) -> FsKind {
    let upper = path.get(..8).map(str::to_ascii_uppercase);
    if matches!(upper.as_deref(), Some(r"\\?\UNC\" | r"\\.\UNC\")) {
        return FsKind::Network("smb");
    }
    if path.starts_with(r"\\?\") || path.starts_with(r"\\.\") {
        return FsKind::Local;
    }
    if path.starts_with(r"\\") || path.starts_with("//") {
        return FsKind::Network("smb");
    }
    FsKind::Local
}

/// A macOS file system's kind from its `statfs` type name (`f_fstypename`):
/// the network ones Apple ships (SMB, NFS, AFP, WebDAV, FTP), FUSE file
/// systems as on Linux without a mount table (network: the safe side), and
/// anything else (apfs, hfs, msdos, exfat, ...) local.
#[cfg(any(target_os = "macos", test))]
pub(super) fn kind_of_fstypename(name: &str) -> FsKind {
    match name {
        "smbfs" | "cifs" => FsKind::Network("smb"),
        "nfs" => FsKind::Network("nfs"),
        "afpfs" => FsKind::Network("afp"),
        "webdav" => FsKind::Network("webdav"),
        "ftp" => FsKind::Network("ftp"),
        n if n.contains("fuse") => FsKind::Network("fuse (not known to be on a local disk)"),
        _ => FsKind::Local,
    }
}

/// `statfs` magic number of every FUSE file system (`fuse`, `fuse.*`, `fuseblk`).
#[cfg(any(target_os = "linux", test))]
const FUSE_SUPER_MAGIC: u32 = 0x6573_5546;

/// What FUSE file system must be taken as when the mount table does not say:
/// network, so appends are locked (the safe side).
#[cfg(any(target_os = "linux", test))]
const FUSE_UNTOLD: FsKind = FsKind::Network("fuse (not known to be on a local disk)");

/// Linux `statfs` magic numbers of network and cluster file systems. FUSE's
/// number alone cannot tell a local disk from a remote one, so it is counted
/// as network here; `filesystem_kind` asks the mount table first.
#[cfg(any(target_os = "linux", test))]
pub fn kind_of_magic(magic: i64) -> FsKind {
    match magic32(magic) {
        0x6969 => FsKind::Network("nfs"),
        0xFF53_4D42 => FsKind::Network("cifs"),
        0xFE53_4D42 => FsKind::Network("smb2"),
        0x517B => FsKind::Network("smb"),
        0x0102_1997 => FsKind::Network("9p"),
        0x00C3_6400 => FsKind::Network("ceph"),
        0x1983_0326 => FsKind::Network("beegfs"),
        0x0BD0_0BD0 => FsKind::Network("lustre"),
        0x4750_4653 => FsKind::Network("gpfs"),
        FUSE_SUPER_MAGIC => FUSE_UNTOLD,
        _ => FsKind::Local,
    }
}

/// The low 32 bits of an `f_type`, where the magic numbers are: an
/// architecture whose `f_type` is a signed 32-bit integer gives `0xFF53_4D42`
/// (cifs) as a negative number, sign-extended to 64 bits.
#[cfg(any(target_os = "linux", test))]
fn magic32(f_type: i64) -> u32 {
    let [a, b, c, d, ..] = f_type.to_le_bytes();
    u32::from_le_bytes([a, b, c, d])
}

/// A FUSE path's kind, from the mount that holds it in `/proc/self/mountinfo`.
#[cfg(target_os = "linux")]
fn fuse_kind(path: &std::path::Path) -> FsKind {
    // The mount point is matched against the real path: symbolic links and
    // `..` resolved, as the kernel resolved them for `statfs`.
    let (Ok(real), Ok(table)) = (std::fs::canonicalize(path), std::fs::read("/proc/self/mountinfo")) else {
        return FUSE_UNTOLD;
    };
    match mount_of(&table, &real) {
        Some(m) => kind_of_fuse_mount(&m.fstype, &m.source, |dev| {
            use std::os::unix::fs::FileTypeExt;
            std::fs::metadata(dev).is_ok_and(|meta| meta.file_type().is_block_device())
        }),
        None => FUSE_UNTOLD,
    }
}

/// One line of `/proc/self/mountinfo`, the fields we use, unescaped.
#[cfg(any(target_os = "linux", test))]
#[derive(Debug, PartialEq, Eq)]
struct Mount {
    mount_point: std::path::PathBuf,
    /// `ext4`, `fuseblk`, `fuse.sshfs`, ...
    fstype: String,
    /// What is mounted: `/dev/sda1`, `user@host:/dir`, ...
    source: std::path::PathBuf,
}

/// The mount holding `path` (absolute, canonical): the one whose mount point is
/// the longest prefix of it, component by component; of mounts on the same
/// point, the last listed (it hides the earlier ones). Lines that do not parse
/// are skipped.
#[cfg(any(target_os = "linux", test))]
fn mount_of(mountinfo: &[u8], path: &std::path::Path) -> Option<Mount> {
    let mut best: Option<Mount> = None;
    for line in mountinfo.split(|&b| b == b'\n') {
        let Some(m) = parse_mountinfo_line(line) else { continue };
        let depth = m.mount_point.components().count();
        if path.starts_with(&m.mount_point) && best.as_ref().is_none_or(|b| depth >= b.mount_point.components().count()) {
            best = Some(m);
        }
    }
    best
}

/// `36 35 98:0 /root /mnt/point rw,noatime master:1 - ext3 /dev/sda1 rw`: ID,
/// parent ID, device, root, mount point, options, optional fields ended by
/// `-`, then file system type, source and its options (proc(5)).
#[cfg(any(target_os = "linux", test))]
fn parse_mountinfo_line(line: &[u8]) -> Option<Mount> {
    let fields: Vec<&[u8]> = line.split(|&b| b == b' ').collect();
    // The separator comes after the six fixed fields and the optional ones.
    let sep = fields.iter().skip(6).position(|f| *f == b"-")? + 6;
    let mount_point = unescape(fields.get(4)?);
    let fstype = String::from_utf8(unescape(fields.get(sep + 1)?)).ok()?;
    let source = unescape(fields.get(sep + 2)?);
    if !mount_point.starts_with(b"/") || fstype.is_empty() {
        return None;
    }
    Some(Mount { mount_point: path_of(mount_point), fstype, source: path_of(source) })
}

/// The kernel writes space, tab, newline and backslash in mountinfo fields as
/// `\ooo` (three octal digits); anything else is itself.
#[cfg(any(target_os = "linux", test))]
fn unescape(field: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(field.len());
    let mut i = 0;
    while i < field.len() {
        let octal = field.get(i + 1..i + 4).filter(|d| field[i] == b'\\' && d.iter().all(|c| (b'0'..=b'7').contains(c)));
        match octal {
            // Three octal digits are at most 0o777; the kernel writes only bytes (<= 0o377).
            Some(d) if d[0] <= b'3' => {
                out.push(d.iter().fold(0u8, |n, c| n * 8 + (c - b'0')));
                i += 4;
            }
            _ => {
                out.push(field[i]);
                i += 1;
            }
        }
    }
    out
}

#[cfg(all(unix, any(target_os = "linux", test)))]
fn path_of(bytes: Vec<u8>) -> std::path::PathBuf {
    use std::os::unix::ffi::OsStringExt;
    std::ffi::OsString::from_vec(bytes).into()
}

#[cfg(all(not(unix), test))]
fn path_of(bytes: Vec<u8>) -> std::path::PathBuf {
    String::from_utf8_lossy(&bytes).into_owned().into()
}

/// The kind of a FUSE mount, from its type and source. `fuseblk` is FUSE on a
/// block device (the kernel opened the device for the daemon); a plain `fuse`
/// or `fuse.<name>` mount of a block device in `/dev` (ntfs-3g mounted by a
/// user) is local too. Everything else, known (sshfs) or not, is network: it
/// may be shared with other machines. A type that is not FUSE at all means the
/// table and `statfs` disagree (the mount changed in between): untold.
#[cfg(any(target_os = "linux", test))]
fn kind_of_fuse_mount(fstype: &str, source: &std::path::Path, is_block_device: impl Fn(&std::path::Path) -> bool) -> FsKind {
    if fstype == "fuseblk" || fstype.starts_with("fuseblk.") {
        return FsKind::LocalFuse;
    }
    if fstype != "fuse" && !fstype.starts_with("fuse.") {
        return FUSE_UNTOLD;
    }
    if source.starts_with("/dev") && is_block_device(source) {
        return FsKind::LocalFuse;
    }
    FsKind::Network(static_name(fstype))
}

/// A `'static` copy of a file system type name for `FsKind::Network`, made once
/// per distinct name: the names come from this machine's mount table, so there
/// are few, and past 64 of them (or a poisoned lock) the generic name serves.
#[cfg(any(target_os = "linux", test))]
fn static_name(name: &str) -> &'static str {
    static NAMES: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());
    let Ok(mut names) = NAMES.lock() else { return "fuse" };
    if let Some(known) = names.iter().find(|n| **n == name) {
        return known;
    }
    if names.len() >= 64 || name.len() > 100 {
        return "fuse";
    }
    let leaked: &'static str = Box::leak(name.to_owned().into_boxed_str());
    names.push(leaked);
    leaked
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn windows_paths_a_share_is_network_a_drive_is_local_in_every_form() {
        assert_eq!(kind_of_windows_path(r"\\nas\logs\store"), FsKind::Network("smb"));
        assert_eq!(kind_of_windows_path("//nas/logs/store"), FsKind::Network("smb"));
        assert_eq!(kind_of_windows_path(r"\\?\UNC\nas\logs\store"), FsKind::Network("smb"));
        assert_eq!(kind_of_windows_path(r"\\?\unc\nas\logs"), FsKind::Network("smb"));
        assert_eq!(kind_of_windows_path(r"\\.\UNC\nas\logs"), FsKind::Network("smb"));
        // What `canonicalize` makes of C:\data\store: local, not a share.
        assert_eq!(kind_of_windows_path(r"\\?\C:\data\store"), FsKind::Local);
        assert_eq!(kind_of_windows_path(r"\\.\D:\store"), FsKind::Local);
        assert_eq!(kind_of_windows_path(r"C:\data\store"), FsKind::Local);
        assert_eq!(kind_of_windows_path(r"store"), FsKind::Local);
        assert_eq!(kind_of_windows_path(""), FsKind::Local);
    }

    #[test]
    fn macos_type_names() {
        assert_eq!(kind_of_fstypename("smbfs"), FsKind::Network("smb"));
        assert_eq!(kind_of_fstypename("nfs"), FsKind::Network("nfs"));
        assert_eq!(kind_of_fstypename("afpfs"), FsKind::Network("afp"));
        assert_eq!(kind_of_fstypename("webdav"), FsKind::Network("webdav"));
        assert!(kind_of_fstypename("macfuse").is_network());
        for local in ["apfs", "hfs", "msdos", "exfat", "ntfs", "devfs"] {
            assert_eq!(kind_of_fstypename(local), FsKind::Local, "{local}");
        }
    }

    /// The temporary folder is on the machine's own disk on every platform CI runs on.
    #[cfg(any(target_os = "linux", target_os = "macos", windows))]
    #[test]
    fn the_temporary_folder_is_local() {
        let dir = tempfile::tempdir().expect("tmp");
        let kind = filesystem_kind(dir.path());
        assert!(!kind.is_network(), "{kind:?}");
        #[cfg(windows)]
        assert!(!filesystem_kind(&std::fs::canonicalize(dir.path()).expect("canonical")).is_network());
    }

    #[test]
    fn magic_numbers() {
        assert_eq!(kind_of_magic(0x6969), FsKind::Network("nfs"));
        assert_eq!(kind_of_magic(0xFF53_4D42), FsKind::Network("cifs"));
        // A signed 32-bit `f_type` (0xFF53_4D42 as i32), sign-extended.
        assert_eq!(kind_of_magic(-0x00AC_B2BE), FsKind::Network("cifs"));
        assert_eq!(kind_of_magic(0xEF53), FsKind::Local); // ext4
        assert!(kind_of_magic(0x6573_5546).is_network()); // FUSE, without the mount table
        #[cfg(target_os = "linux")]
        assert!(!filesystem_kind(std::path::Path::new("/tmp")).is_network());
    }

    /// A mount table as a Linux machine with a Windows disk, a USB stick, an
    /// sshfs share and an NFS home shows it (lines from real systems).
    const TABLE: &str = "\
22 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw,errors=remount-ro
25 22 0:23 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw
41 22 8:17 / /media/win rw,relatime shared:30 - fuseblk /dev/sdb1 rw,user_id=0,group_id=0,allow_other,blksize=4096
42 22 0:45 / /home/ann/remote rw,nosuid,nodev,relatime shared:31 - fuse.sshfs ann@host:/srv rw,user_id=1000,group_id=1000
43 22 0:46 / /home rw,relatime shared:32 master:7 - nfs4 srv:/home rw,vers=4.2,rsize=1048576
44 43 0:47 / /home/ann/My\\040Drive rw,relatime - fuse.rclone gdrive: rw,user_id=1000
45 41 8:33 / /media/win/usb rw,relatime - fuseblk /dev/sdc1 rw,blksize=4096
46 22 0:48 / /mnt/odd\\134name\\011x rw,relatime - fuse.mystery /srv/src rw
47 22 8:49 / /mnt/userntfs rw,relatime - fuse /dev/sdd1 rw,user_id=1000
48 22 0:50 / /mnt/stack rw - ext4 /dev/sde1 rw
49 22 0:51 / /mnt/stack rw - fuse.s3fs s3fs rw
not a mountinfo line
50 22 0:52 / relative rw - ext4 /dev/x rw
";

    fn mount(path: &str) -> Mount {
        match mount_of(TABLE.as_bytes(), Path::new(path)) {
            Some(m) => m,
            None => panic!("no mount for {path}"),
        }
    }

    #[test]
    fn mountinfo_longest_prefix_and_fields() {
        let m = mount("/media/win/store/t");
        assert_eq!(
            (m.mount_point.as_path(), m.fstype.as_str(), m.source.as_path()),
            (Path::new("/media/win"), "fuseblk", Path::new("/dev/sdb1"))
        );
        // nested: the deeper mount wins, whatever its place in the table
        assert_eq!(mount("/media/win/usb/s").source, Path::new("/dev/sdc1"));
        assert_eq!(mount("/home/ann/remote/s").fstype, "fuse.sshfs");
        assert_eq!(mount("/home/ann/s").fstype, "nfs4");
        assert_eq!(mount("/var/lib/s").fstype, "ext4");
        // component prefixes only: /media/window is not under /media/win
        assert_eq!(mount("/media/window/s").fstype, "ext4");
        // the mount point itself
        assert_eq!(mount("/home/ann/remote").fstype, "fuse.sshfs");
        // escaped space, backslash and tab in the mount point
        assert_eq!(mount("/home/ann/My Drive/s").fstype, "fuse.rclone");
        assert_eq!(mount("/mnt/odd\\name\tx/s").fstype, "fuse.mystery");
        assert_eq!(mount("/home/ann/My\\040Drive/s").fstype, "nfs4");
        // two mounts on one point: the later hides the earlier
        assert_eq!(mount("/mnt/stack/s").fstype, "fuse.s3fs");
        assert_eq!(mount_of(b"garbage\n\n1 2 3\n", Path::new("/x")), None);
    }

    #[test]
    fn mountinfo_optional_fields_and_escapes() {
        let m = parse_mountinfo_line(b"36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 shared:2 - ext3 /dev/root rw,errors=continue");
        assert_eq!(m.map(|m| (m.mount_point, m.fstype)), Some(("/mnt/parent".into(), "ext3".to_string())));
        // no optional field at all
        assert!(parse_mountinfo_line(b"36 35 98:0 / /a rw - ext3 /dev/root rw").is_some());
        // a missing separator, type or source: skipped, not guessed
        assert_eq!(parse_mountinfo_line(b"36 35 98:0 / /a rw ext3 /dev/root rw"), None);
        assert_eq!(parse_mountinfo_line(b"36 35 98:0 / /a rw -"), None);
        assert_eq!(unescape(b"a\\040b\\134c\\012\\0"), b"a b\\c\n\\0");
        assert_eq!(unescape(b"\\777\\8"), b"\\777\\8");
    }

    #[test]
    fn fuse_mounts_by_type_and_source() {
        let block = |p: &Path| p == Path::new("/dev/sdd1");
        let kind = |path: &str| {
            let m = mount(path);
            kind_of_fuse_mount(&m.fstype, &m.source, block)
        };
        assert_eq!(kind("/media/win/s"), FsKind::LocalFuse); // ntfs-3g
        assert_eq!(kind("/media/win/usb/s"), FsKind::LocalFuse);
        assert_eq!(kind("/mnt/userntfs/s"), FsKind::LocalFuse); // plain fuse on a block device
        assert_eq!(kind("/home/ann/remote/s"), FsKind::Network("fuse.sshfs"));
        assert_eq!(kind("/home/ann/My Drive/s"), FsKind::Network("fuse.rclone"));
        assert_eq!(kind("/mnt/stack/s"), FsKind::Network("fuse.s3fs"));
        // an unknown subtype not on a block device: network (appends locked)
        assert_eq!(kind("/mnt/odd\\name\tx/s"), FsKind::Network("fuse.mystery"));
        assert_eq!(kind_of_fuse_mount("fuse", Path::new("/dev/sdd2"), block), FsKind::Network("fuse"));
        assert_eq!(kind_of_fuse_mount("fuse.glusterfs", Path::new("srv:/vol"), block), FsKind::Network("fuse.glusterfs"));
        assert_eq!(kind_of_fuse_mount("fuseblk.exfat", Path::new("/dev/sdf1"), block), FsKind::LocalFuse);
        // the table and statfs disagree: untold, so network
        assert!(kind_of_fuse_mount("ext4", Path::new("/dev/sdd1"), block).is_network());
        assert!(!FsKind::LocalFuse.is_network());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_machines_table() {
        let table = std::fs::read("/proc/self/mountinfo").unwrap_or_default();
        let root = mount_of(&table, Path::new("/"));
        assert_eq!(root.map(|m| m.mount_point), Some("/".into()));
    }
}
