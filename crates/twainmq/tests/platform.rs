//! The engine's promises that rest on the platform, the same on every one:
//! run on Linux by `make unit`, and built for Windows and run under Wine by
//! `make test` (scripts/windows/test.sh). Where Wine differs from Windows, the
//! test says so, and what real Windows shows is left to the release
//! workflow's Windows job.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use twainmq::group::{GroupMember, GroupOptions};
use twainmq::{KeyType, OffsetClock, StartFrom, Store, TopicSpec};

fn store() -> (tempfile::TempDir, Store) {
    let d = tempfile::tempdir().expect("tmp");
    let s = Store::open(d.path()).expect("open");
    (d, s)
}

fn under_wine() -> bool {
    twainmq::internals::under_wine()
}

/// Every message of partition `p`, with its offset.
fn read_all(store: &Store, topic: &str, p: u32) -> Vec<(u64, String)> {
    let mut r = store.partition_reader(topic, p, StartFrom::Start).expect("reader");
    let mut out = Vec::new();
    loop {
        match r.poll() {
            Ok(Some(m)) => out.push((m.offset, m.text().unwrap_or("").to_string())),
            Ok(None) => break,
            // A damaged line still holds its offset (Wine's lost appends leave some).
            Err(twainmq::Error::CorruptLine { offset, .. }) => out.push((offset, String::new())),
            Err(e) => panic!("read: {e}"),
        }
    }
    out
}

/// The offset of the next UTC midnight, in microseconds from now, by the system clock.
fn micros_to_midnight() -> i64 {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).expect("clock").as_micros();
    let now = i64::try_from(now).expect("fits");
    let day = 86_400_000_000;
    (now.div_euclid(day) + 1) * day - now
}

/// Three producers whose clocks are up to 0.7 s apart write one partition
/// while UTC midnight passes (each on its own clock): the one still in
/// yesterday must not write into yesterday's file once another started
/// today's, so no offset is given twice. The rollover agreement is our locks
/// (Unix `flock`, Windows `LockFileEx` on a byte far past any data), taken per
/// handle, so three stores in one process agree as three processes do.
fn three_skewed_producers_through_midnight(root: &Path) -> (usize, Vec<(u64, String)>, Vec<twainmq::check::Problem>) {
    // Midnight comes 2 s after the start on the middle clock.
    let base = micros_to_midnight() - 2_000_000;
    let skews = [0i64, 350_000, 700_000];
    let per = 1000usize;
    let setup = Store::open(root).expect("open");
    setup.create_topic("t", &TopicSpec::new(KeyType::U32, 1)).expect("create");
    let start = Instant::now();
    let writers: Vec<_> = skews
        .iter()
        .enumerate()
        .map(|(w, skew)| {
            let root = root.to_path_buf();
            let clock = Arc::new(OffsetClock(base - 350_000 + skew));
            std::thread::spawn(move || {
                let s = Store::open(&root).expect("open").with_clock(clock);
                let mut p = s.producer("t").expect("producer");
                for i in 0..per {
                    // 4 s of writing, steadily, so midnight passes in the middle.
                    let due = start + Duration::from_millis(u64::try_from(i).expect("small") * 4_000 / per as u64);
                    if let Some(wait) = due.checked_duration_since(Instant::now()) {
                        std::thread::sleep(wait);
                    }
                    p.send_text(u32::try_from(w * per + i).expect("small"), &format!("w{w} {i}")).expect("send");
                }
            })
        })
        .collect();
    for w in writers {
        w.join().expect("writer");
    }
    let store = Store::open(root).expect("open");
    let got = read_all(&store, "t", 0);
    let problems = twainmq::check::check_topic(&store, "t").expect("check");
    (skews.len() * per, got, problems)
}

/// The rollover agreement, step by step: a producer whose clock passed
/// midnight makes the next day's file only once no append of ours to the
/// previous file is in progress (an appender near the day's end holds that
/// file's lock, shared, from its look for a newer file to its write), and a
/// producer still in yesterday then joins today's file. Three producers
/// through midnight (below) race for this in microsecond windows; here it is
/// held open for as long as the test likes.
#[test]
fn the_next_days_file_waits_for_an_append_in_progress_on_the_previous_one() {
    let (d, _) = store();
    let midnight_in = micros_to_midnight();
    let behind = Arc::new(OffsetClock(midnight_in - 500_000));
    let ahead = Arc::new(OffsetClock(midnight_in + 500_000));
    let b = Store::open(d.path()).expect("open").with_clock(behind);
    b.create_topic("t", &TopicSpec::new(KeyType::U8, 1)).expect("create");
    let mut late = b.producer("t").expect("producer");
    late.send_text(1u8, "yesterday").expect("send");
    let yesterday = std::fs::read_dir(d.path().join("t")).expect("folder").next().expect("file").expect("entry").path();
    let held = twainmq::internals::hold_append_lock(&yesterday).expect("hold");
    let root = d.path().to_path_buf();
    let (tx, rx) = std::sync::mpsc::channel();
    let early = std::thread::spawn(move || {
        let a = Store::open(&root).expect("open").with_clock(ahead);
        let sent = a.producer("t").expect("producer").send_text(2u8, "today").expect("send");
        let _ = tx.send(());
        sent
    });
    assert!(rx.recv_timeout(Duration::from_millis(500)).is_err(), "today's file was made while an append to yesterday's was in progress");
    drop(held);
    rx.recv_timeout(Duration::from_secs(10)).expect("made once the append was done");
    let today = early.join().expect("thread");
    assert_ne!(*today.path, *yesterday, "a file for the new day");
    assert_eq!(today.file_first, 1, "after yesterday's one line");
    // The producer still in yesterday now writes to today's file.
    let again = late.send_text(3u8, "late").expect("send");
    assert_eq!(again.path, today.path);
    let store = Store::open(d.path()).expect("open");
    let got = read_all(&store, "t", 0);
    assert_eq!(got, vec![(0, "yesterday".into()), (1, "today".into()), (2, "late".into())]);
}

fn assert_no_offset_twice(got: &[(u64, String)], problems: &[twainmq::check::Problem], files: usize) {
    let offsets: Vec<u64> = got.iter().map(|(o, _)| *o).collect();
    assert!(offsets.windows(2).all(|w| w[1] == w[0] + 1), "offsets go back or skip: an offset given twice");
    assert_eq!(offsets.first(), Some(&0));
    let kinds: Vec<&str> = problems.iter().map(|p| p.kind).collect();
    assert!(!kinds.contains(&"offset_overlap") && !kinds.contains(&"duplicate_day"), "{problems:?}");
    assert!(files >= 2, "midnight passed: a file for each day ({files} files)");
}

fn files_of(root: &Path) -> usize {
    std::fs::read_dir(root.join("t")).expect("folder").count()
}

#[test]
fn three_skewed_producers_through_midnight_give_no_offset_twice() {
    let (d, _) = store();
    let (sent, got, problems) = three_skewed_producers_through_midnight(d.path());
    assert_no_offset_twice(&got, &problems, files_of(d.path()));
    if under_wine() {
        // Wine's appends are not atomic, even between threads (measured here:
        // three threads appending 3,000 lines each lose 5-15% of them): two
        // writers land at one end and one overwrites the other. What is read
        // still has each offset once; what was lost is Wine's, not the rollover's.
        eprintln!("under Wine: {} of {sent} messages read back (Wine's appends race)", got.len());
        assert!(got.len() <= sent);
    } else {
        let mut texts: Vec<&str> = got.iter().map(|(_, t)| t.as_str()).collect();
        texts.sort_unstable();
        texts.dedup();
        assert_eq!((got.len(), texts.len()), (sent, sent), "every message once");
    }
}

/// On a network store every append is locked (exclusively: O_APPEND is not
/// atomic between machines), so concurrent producers lose nothing even where
/// appends race, as Wine's do: this is the network-append lock at work. The
/// store must be on a network drive: `TWAINMQ_TEST_NETWORK_DRIVE` names one
/// (scripts/windows/test.sh maps `N:` as a network drive in its Wine prefix;
/// the release workflow maps one with `net use`).
#[cfg(windows)]
#[test]
fn on_a_network_drive_appends_are_locked_and_the_rollover_agreed() {
    let Ok(drive) = std::env::var("TWAINMQ_TEST_NETWORK_DRIVE") else {
        eprintln!("TWAINMQ_TEST_NETWORK_DRIVE is not set: no network drive to test on");
        return;
    };
    let root = PathBuf::from(format!("{drive}\\twainmq-test-{}-{}", std::process::id(), micros_to_midnight()));
    std::fs::create_dir_all(&root).expect("store on the network drive");
    let kind = twainmq::check::check_store(&Store::open(&root).expect("open")).expect("check");
    assert!(kind.iter().any(|p| p.kind == "network_filesystem"), "{drive} is known as a network store: {kind:?}");
    let (sent, got, problems) = three_skewed_producers_through_midnight(&root);
    assert_no_offset_twice(&got, &problems, files_of(&root));
    assert_eq!(got.len(), sent, "locked appends lose nothing");
    let _ = std::fs::remove_dir_all(&root);
}

/// A topic deleted under a producer stops it: within a millisecond or
/// LINK_CHECK_WRITES sends, whichever comes first, nothing more is reported sent.
#[test]
fn a_topic_deleted_under_a_producer_stops_it() {
    let (_d, store) = store();
    store.create_topic("t", &TopicSpec::new(KeyType::U8, 2)).expect("create");
    let mut p = store.producer("t").expect("producer");
    p.send_text(0u8, "before").expect("send");
    store.delete_topic("t").expect("delete");
    // On Windows and Linux the file's handle says it was deleted, and a
    // producer asks it every millisecond or LINK_CHECK_WRITES sends. Under Wine
    // a deleted file someone holds stays, delete pending, and Wine reports no
    // pending delete: the producer's look at its topic by path, once a
    // TOPIC_RECHECK, catches it, so sends may still land in the deleted file
    // until then.
    if under_wine() {
        std::thread::sleep(twainmq::internals::TOPIC_RECHECK + Duration::from_millis(100));
    }
    let mut sent = 0;
    let stopped = loop {
        match p.send_text(0u8, "after") {
            Ok(_) if sent < 10 * twainmq::internals::LINK_CHECK_WRITES => sent += 1,
            Ok(_) => break "still sending".to_string(),
            Err(e) => break e.code().to_string(),
        }
    };
    assert_eq!(stopped, "topic_deleted");
    assert!(sent <= twainmq::internals::LINK_CHECK_WRITES, "{sent} sends reported after the delete");
    // Made again (any partition count): the old producer never writes to it.
    store.create_topic("t", &TopicSpec::new(KeyType::U8, 4)).expect("again");
    for k in 0..4u8 {
        assert_eq!(p.send_text(k, "after again").expect_err("replaced").code(), "topic_deleted");
    }
    assert!((0..4).all(|q| read_all(&store, "t", q).is_empty()));
    store.producer("t").expect("new").send_text(0u8, "new").expect("send to the new topic");
}

/// A follower and a group member stop when their topic is deleted.
#[test]
fn a_follower_and_a_group_member_stop_when_their_topic_is_deleted() {
    let (_d, store) = store();
    store.create_topic("t", &TopicSpec::new(KeyType::U8, 1)).expect("create");
    store.producer("t").expect("p").send_text(0u8, "one").expect("send");
    let mut r = store.partition_reader("t", 0, StartFrom::Start).expect("reader");
    assert!(r.poll().expect("poll").is_some());
    let opts = GroupOptions { window: Duration::from_millis(200), ..GroupOptions::default() };
    let mut m = GroupMember::join(&store, "t", "g", opts).expect("join");
    let deadline = Instant::now() + Duration::from_secs(20);
    while m.poll_timeout(Duration::from_millis(50)).expect("poll").is_none() {
        assert!(Instant::now() < deadline, "the member got the message");
    }
    store.delete_topic("t").expect("delete");
    // Under Wine, within a TOPIC_RECHECK (see above).
    let deadline = Instant::now() + twainmq::internals::TOPIC_RECHECK * 3;
    let follower = loop {
        match r.poll() {
            Err(e) => break e.code(),
            Ok(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            Ok(_) => break "still reading",
        }
    };
    assert_eq!(follower, "topic_deleted");
    let member = loop {
        match m.poll_timeout(Duration::from_millis(50)) {
            Err(e) => break e.code(),
            Ok(_) if Instant::now() < deadline => {}
            Ok(_) => break "still reading",
        }
    };
    assert!(member == "topic_deleted" || member == "group_not_found", "{member}");
}

/// Deleting a topic while our own producer and reader hold its files (they
/// share delete) goes through, and the name is free at once for a new topic.
#[test]
fn a_topic_deleted_while_our_handles_hold_its_files_is_gone_and_its_name_free() {
    let (d, store) = store();
    store.create_topic("t", &TopicSpec::new(KeyType::U8, 1)).expect("create");
    let mut p = store.producer("t").expect("p");
    p.send_text(0u8, "held").expect("send");
    let mut r = store.partition_reader("t", 0, StartFrom::Start).expect("reader");
    assert!(r.poll().expect("poll").is_some());
    store.delete_topic("t").expect("delete");
    assert!(store.list_topics().expect("list").is_empty());
    store.create_topic("t", &TopicSpec::new(KeyType::U8, 1)).expect("the name is free");
    store.producer("t").expect("new").send_text(0u8, "fresh").expect("send");
    assert_eq!(read_all(&store, "t", 0).into_iter().map(|(_, t)| t).collect::<Vec<_>>(), vec!["fresh".to_string()]);
    // Once the old handles are let go, nothing of the old topic is left in the store.
    drop((p, r));
    store.create_topic("u", &TopicSpec::default()).expect("create");
    store.delete_topic("u").expect("delete sweeps what waited");
    let mut left: Vec<String> =
        std::fs::read_dir(d.path()).expect("list").map(|e| e.expect("entry").file_name().to_string_lossy().into_owned()).collect();
    left.sort();
    assert_eq!(left, ["t", "t.twc"], "the old folder, if it waited, is gone");
}

/// What 0.2.3 does on Windows: hold a partition file open without sharing
/// delete (Python's `open()`; its appends use `CreateFileW(FILE_APPEND_DATA,
/// FILE_SHARE_READ | FILE_SHARE_WRITE)`). A delete, a purge and a retention
/// run are refused after their retries, say which file is held and why, and
/// leave the topic whole and usable; a settings change waits for the config
/// the same way. Once the file is let go, each goes through.
#[cfg(windows)]
#[test]
fn a_delete_refused_because_0_2_3_holds_a_file_leaves_the_topic_whole() {
    use std::os::windows::fs::OpenOptionsExt;
    let (d, store) = store();
    store.create_topic("t", &TopicSpec::new(KeyType::U8, 2)).expect("create");
    let mut p = store.producer("t").expect("p");
    for k in 0..10u8 {
        p.send_text(k, "m").expect("send");
    }
    drop(p);
    let file = std::fs::read_dir(d.path().join("t")).expect("folder").next().expect("a file").expect("entry").path();
    // FILE_SHARE_READ | FILE_SHARE_WRITE, no FILE_SHARE_DELETE.
    let held = std::fs::OpenOptions::new().read(true).share_mode(3).open(&file).expect("hold as 0.2.3 does");
    let before: Vec<Vec<(u64, String)>> = (0..2).map(|q| read_all(&store, "t", q)).collect();

    let err = store.delete_topic("t").expect_err("refused");
    assert_eq!(err.code(), "file_in_use", "{err}");
    let text = err.to_string();
    assert!(text.contains(&*file.file_name().expect("name").to_string_lossy()) && text.contains("another process"), "{text}");
    assert_eq!(store.purge_topic("t", None, false, true).expect_err("refused").code(), "file_in_use");
    // Whole and usable: the config, every message, a new producer.
    assert_eq!(store.list_topics().expect("list"), vec!["t".to_string()]);
    assert_eq!((0..2).map(|q| read_all(&store, "t", q)).collect::<Vec<_>>(), before);
    store.producer("t").expect("p").send_text(1u8, "still usable").expect("send");

    // A settings change waits for a config held so, then says so.
    let config = d.path().join("t.twc");
    let held_config = std::fs::OpenOptions::new().read(true).share_mode(3).open(&config).expect("hold the config");
    let err = store.set_retention("t", Some(twainmq::Retention { days: Some(3), bytes_per_partition: None })).expect_err("held");
    assert_eq!(err.code(), "file_in_use", "{err}");
    assert!(store.retention("t").expect("read").is_none(), "the old config stands");
    drop(held_config);
    store.set_retention("t", Some(twainmq::Retention { days: Some(3), bytes_per_partition: None })).expect("set once let go");

    drop(held);
    store.delete_topic("t").expect("deleted once let go");
    assert!(store.list_topics().expect("list").is_empty());
}

/// Names Windows cannot hold are refused for new topics and groups on every
/// platform (stores move between machines on NTFS disks).
#[test]
fn reserved_names_trailing_dots_and_case_twins_are_refused() {
    let (_d, store) = store();
    store.create_topic("events", &TopicSpec::default()).expect("create");
    for name in ["CON", "nul", "Aux.events", "com1", "LPT9.x", "a.", "events.."] {
        let e = store.create_topic(name, &TopicSpec::default()).expect_err(name);
        assert_eq!(e.code(), "invalid_topic_name", "{name}: {e}");
        assert!(e.to_string().contains("Windows"), "{e}");
        let e = store.ensure_group("events", name, StartFrom::Start).expect_err(name);
        assert_eq!(e.code(), "invalid_group_name", "group {name}: {e}");
    }
    let e = store.create_topic("Events", &TopicSpec::default()).expect_err("a case twin");
    assert_eq!(e.code(), "invalid_topic_name");
    assert!(e.to_string().contains("\"events\""), "{e}");
    store.ensure_group("events", "g", StartFrom::Start).expect("group");
    let e = store.ensure_group("events", "G", StartFrom::Start).expect_err("a case twin group");
    assert_eq!(e.code(), "invalid_group_name", "{e}");
    assert_eq!(store.list_topics().expect("list"), vec!["events".to_string()]);
}

/// A store holding topics Windows cannot hold (made on Linux, or by hand):
/// `check` names them; on Windows they are reported, never opened (Windows
/// would open the console device, outside the store), and every other topic
/// reads as before.
#[test]
fn a_store_with_names_windows_cannot_hold_reports_them_and_reads_the_rest() {
    let (d, store) = store();
    store.create_topic("fine", &TopicSpec::default()).expect("create");
    store.producer("fine").expect("p").send_text(1u16, "ok").expect("send");
    // Made as 0.2.3 on Linux would: config and folder. On Windows only a
    // verbatim path (\\?\) can make such names.
    let root = verbatim(d.path());
    for name in ["CON", "nul.events", "a."] {
        std::fs::write(root.join(format!("{name}.twc")), br#"{"key_width": 2, "partitions": 1, "message_types": {}}"#).expect("config");
        std::fs::create_dir(root.join(name)).expect("folder");
        std::fs::write(root.join(name).join("0-20261203_0.tmf"), b"").expect("file");
    }
    let problems = twainmq::check::check_store(&store).expect("check");
    let mut named: Vec<&str> = problems.iter().filter(|p| p.kind == "windows_name").map(|p| p.topic.as_str()).collect();
    named.sort_unstable();
    assert_eq!(named, ["CON", "a.", "nul.events"], "{problems:?}");
    assert_eq!(read_all(&store, "fine", 0), vec![(0, "ok".to_string())]);
    let summaries = store.topic_summaries(true).expect("summaries");
    assert_eq!(summaries.len(), 4);
    for s in &summaries {
        if s.name == "fine" {
            assert!(s.config.is_ok() && s.totals.as_ref().is_some_and(Result::is_ok));
        } else if cfg!(windows) {
            let e = s.config.as_ref().expect_err("not opened on Windows");
            assert!(e.contains("Windows"), "{e}");
        } else {
            assert!(s.config.is_ok(), "{}: readable where the name is a name", s.name);
        }
    }
    if cfg!(windows) {
        assert_eq!(store.producer("CON").expect_err("not opened").code(), "invalid_topic_name");
        assert_eq!(store.delete_topic("nul.events").expect_err("not touched").code(), "invalid_topic_name");
    }
}

/// `\\?\` form on Windows (names such as `CON` are taken as they are), the path itself elsewhere.
fn verbatim(p: &Path) -> PathBuf {
    if cfg!(windows) {
        std::fs::canonicalize(p).expect("canonical")
    } else {
        p.to_path_buf()
    }
}

/// A store this user may not write says so before any write is tried: on Unix
/// a read-only folder (or, for root, whom modes do not stop, a read-only mount),
/// on Windows a folder whose ACL denies this user adding files (never one with
/// the read-only attribute, which Windows ignores for folders). Nothing is written to ask.
#[test]
fn a_store_this_user_cannot_write_says_so_without_writing() {
    let (d, s) = store();
    s.create_topic("t", &TopicSpec::new(KeyType::U16, 1)).expect("topic");
    assert_eq!(s.write_denied(), None, "a fresh folder is writable");
    let listing = |p: &Path| {
        let mut v: Vec<_> = std::fs::read_dir(p).expect("list").map(|e| e.expect("entry").file_name()).collect();
        v.sort();
        v
    };
    let before = listing(d.path());
    #[cfg(unix)]
    let _restore = {
        use std::os::unix::fs::PermissionsExt;
        // Root ignores modes: it gets a read-only mount instead.
        let root = std::process::Command::new("id").arg("-u").output().map(|o| o.stdout == b"0\n").unwrap_or(false);
        if root {
            let st =
                std::process::Command::new("mount").args(["-t", "tmpfs", "-o", "size=1m", "tmpfs"]).arg(d.path()).status().expect("mount");
            assert!(st.success(), "mounting a tmpfs (root here)");
            let s2 = Store::open(d.path()).expect("open the mount");
            s2.create_topic("t", &TopicSpec::new(KeyType::U16, 1)).expect("topic");
            assert_eq!(s2.write_denied(), None);
            let st = std::process::Command::new("mount").args(["-o", "remount,ro"]).arg(d.path()).status().expect("remount");
            assert!(st.success());
            let why = s2.write_denied().expect("a read-only mount is not writable");
            assert!(why.contains("cannot be written by this user") && why.contains("reading only"), "{why}");
            let st = std::process::Command::new("umount").arg(d.path()).status().expect("umount");
            assert!(st.success());
            return;
        }
        std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o555)).expect("chmod");
        scopeguard_restore(d.path())
    };
    #[cfg(windows)]
    {
        // The read-only attribute: Windows does not apply it to a folder's
        // contents (Explorer marks folders it customises so), nor do we.
        let mark = |on: bool| {
            let mut p = std::fs::metadata(d.path()).expect("meta").permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            p.set_readonly(on);
            std::fs::set_permissions(d.path(), p).expect("attribute");
        };
        mark(true);
        assert_eq!(s.write_denied(), None, "a folder with the read-only attribute is writable on Windows");
        mark(false);
        if twainmq::internals::under_wine() {
            // Wine maps no ACL onto the Unix folder and this runs as root, whom
            // Unix modes do not stop: nothing here can deny this user writing.
            // The message itself is shown by the Unix arm (a read-only mount).
            eprintln!("not shown under Wine: a folder this user may not write (an ACL), which Wine cannot make");
            return;
        }
        let user = std::env::var("USERNAME").expect("USERNAME");
        let icacls = |args: &[&str]| {
            let st = std::process::Command::new("icacls").arg(d.path()).args(args).status().expect("icacls");
            assert!(st.success(), "icacls {args:?}");
        };
        icacls(&["/deny", &format!("{user}:(AD,WD,DC)")]);
        let why = s.write_denied();
        icacls(&["/remove:d", &user]);
        let why = why.expect("a folder whose ACL denies this user adding files is not writable");
        assert!(why.contains("cannot be written by this user"), "{why}");
        assert_eq!(listing(d.path()), before, "asking wrote nothing");
    }
    #[cfg(unix)]
    {
        let why = s.write_denied().expect("a read-only folder is not writable");
        assert!(why.contains("cannot be written by this user"), "{why}");
        assert_eq!(listing(d.path()), before, "asking wrote nothing");
    }
}

/// Gives a folder made read-only back its write permission when dropped (so
/// that its temporary directory can be deleted).
#[cfg(unix)]
fn scopeguard_restore(p: &Path) -> impl Drop {
    struct Restore(PathBuf);
    impl Drop for Restore {
        fn drop(&mut self) {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(&self.0, std::fs::Permissions::from_mode(0o755));
        }
    }
    Restore(p.to_path_buf())
}
