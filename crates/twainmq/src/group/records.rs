//! The seven record types of a group log, as 0.2.3's dataclasses encode them.

use serde::Serialize;
use serde_json::{json, Value};

use crate::format::message::Message;
use crate::format::payload::{Outgoing, Payload};

pub const JOINED: &str = "~~TWAIN~~JOINED";
pub const ABORTJOIN: &str = "~~TWAIN~~ABORTJOIN";
pub const REBALOFFER: &str = "~~TWAIN~~REBALOFFER";
pub const REBALCONFIRM: &str = "~~TWAIN~~REBALCONFIRM";
pub const BEGINREBAL: &str = "~~TWAIN~~BEGINREBAL";
pub const ENDREBAL: &str = "~~TWAIN~~ENDREBAL";
pub const COMMIT: &str = "~~TWAIN~~COMMIT";

/// The group topic's `message_types`, ids 0..=6 in this order.
pub const TYPES: [&str; 7] = [JOINED, ABORTJOIN, REBALOFFER, REBALCONFIRM, BEGINREBAL, ENDREBAL, COMMIT];

/// The low 20 bits of the `JOINED` tag of a member of ours (one that moves to
/// an admin commit, a reset, while it holds the partition; 0.2.3 members keep
/// their own position and overwrite it). 0.2.3 compares tags only for equality,
/// so the mark is invisible to it; a 0.2.3 tag (64 random bits) carries it by
/// chance once in about a million members, and is then taken for ours.
const OUR_TAG_MASK: u64 = 0xF_FFFF;
const OUR_TAG_MARK: u64 = 0x7_1E55;

/// A `JOINED` tag of ours: `random` with the mark in its low bits.
pub(crate) fn our_tag(random: u64) -> u64 {
    (random & !OUR_TAG_MASK) | OUR_TAG_MARK
}

/// Whether a `JOINED` tag carries our mark (see [`our_tag`]).
pub(crate) fn is_our_tag(tag: u64) -> bool {
    tag & OUR_TAG_MASK == OUR_TAG_MARK
}

/// Longest program name, version and host name kept from a `JOINED` record
/// (another program may write anything there); longer ones are cut.
const MAX_CLIENT_FIELD: usize = 255;

/// Which program a member of ours is and where it runs, as its `JOINED`
/// record says beside the tag. 0.2.3 builds its `Joined` from the `tag` field
/// alone (`dataclass_from_dict` reads a dataclass's own fields), so the extra
/// fields are invisible to it; 0.2.3 members write none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ClientInfo {
    /// The program: `twainmq-cli` (the `twainmq` command), `twainmq-rs` (the
    /// Python package), `twainmq-desktop` (the app's demo members),
    /// `twainmq-rust` (a Rust program using the engine), or another program's
    /// own name.
    pub program: String,
    /// Its version.
    pub version: String,
    /// The host name of the machine it runs on, if known.
    pub host: Option<String>,
    /// Its process id on that machine, if known.
    pub pid: Option<u32>,
}

impl ClientInfo {
    /// `program` at `version`, running in this process on this machine.
    pub fn this_process(program: &str, version: &str) -> ClientInfo {
        let host = gethostname::gethostname().to_string_lossy().into_owned();
        ClientInfo {
            program: bounded(program),
            version: bounded(version),
            host: (!host.is_empty()).then(|| bounded(&host)),
            pid: Some(std::process::id()),
        }
    }

    /// The client fields of a `JOINED` record's JSON, if it has them.
    fn from_fields(f: &Value) -> Option<ClientInfo> {
        let program = f.get("client")?.as_str()?;
        Some(ClientInfo {
            program: bounded(program),
            version: f.get("version").and_then(Value::as_str).map(bounded).unwrap_or_default(),
            host: f.get("host").and_then(Value::as_str).map(bounded),
            pid: f.get("pid").and_then(Value::as_u64).and_then(|p| u32::try_from(p).ok()),
        })
    }
}

/// `s` cut to at most [`MAX_CLIENT_FIELD`] bytes, at a character boundary.
fn bounded(s: &str) -> String {
    let mut end = s.len().min(MAX_CLIENT_FIELD);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_string()
}

/// One group record.
#[derive(Debug, Clone, PartialEq)]
pub enum Record {
    /// `JOINED`: a member claims the id it is written under.
    Joined {
        /// A random number the member chose, so that it can tell its own claim
        /// from another's for the same id (the first `JOINED` of an id wins).
        tag: u64,
        /// Which program joined, where: extra fields our members write beside
        /// the tag (0.2.3 reads only `tag`, and writes nothing else).
        client: Option<ClientInfo>,
    },
    /// `ABORTJOIN`: a member gives up an id another member claimed first.
    AbortJoin {
        /// The tag of the `JOINED` that won the id.
        tag: u64,
    },
    /// `REBALOFFER`: a member's offer in the open round.
    Offer {
        /// Partitions it holds now.
        own: Vec<u32>,
        /// Partitions it is willing to take: 0.2.3 offers all, 0 to N-1.
        partitions: Vec<u32>,
    },
    /// `REBALCONFIRM`: what a member took when a round ended.
    Confirm {
        /// Its partitions, sorted.
        partitions: Vec<u32>,
    },
    /// `BEGINREBAL`: opens a round.
    BeginRound {
        /// When the round ends, UNIX seconds by the writer's clock (0.2.3:
        /// now + 60 s).
        ends_at: f64,
    },
    /// `ENDREBAL`: ends the open round; only the first after its `BEGINREBAL` counts.
    EndRound,
    /// `COMMIT`: consumed positions.
    Commit {
        /// `(partition, next offset)` pairs; -1 means "the partition's end
        /// when taken". The latest per partition, in log order, wins.
        offsets: Vec<(u32, i64)>,
    },
}

fn u32_list(v: &Value) -> Option<Vec<u32>> {
    v.as_array()?.iter().map(|x| x.as_u64().and_then(|x| u32::try_from(x).ok())).collect()
}

impl Record {
    /// Interpret a message of a group topic; `None` for anything that is not a valid record.
    pub fn from_message(m: &Message) -> Option<Record> {
        let Payload::Typed(t) = &m.payload else { return None };
        let fields = t.fields()?;
        let f = &fields;
        Some(match t.class.as_deref()? {
            JOINED => Record::Joined { tag: f.get("tag")?.as_u64()?, client: ClientInfo::from_fields(f) },
            ABORTJOIN => Record::AbortJoin { tag: f.get("tag")?.as_u64()? },
            REBALOFFER => Record::Offer { own: u32_list(f.get("own")?)?, partitions: u32_list(f.get("partitions")?)? },
            REBALCONFIRM => Record::Confirm { partitions: u32_list(f.get("partitions")?)? },
            BEGINREBAL => Record::BeginRound { ends_at: f.get("timestamp")?.as_f64()? },
            ENDREBAL => Record::EndRound,
            COMMIT => Record::Commit {
                offsets: f
                    .get("partition_offsets")?
                    .as_array()?
                    .iter()
                    .map(|pair| {
                        let pair = pair.as_array()?;
                        Some((u32::try_from(pair.first()?.as_u64()?).ok()?, pair.get(1)?.as_i64()?))
                    })
                    .collect::<Option<Vec<_>>>()?,
            },
            _ => return None,
        })
    }

    /// The outgoing typed message for this record.
    pub fn to_outgoing(&self) -> Outgoing {
        let (class, fields) = match self {
            Record::Joined { tag, client: None } => (JOINED, json!({ "tag": tag })),
            Record::Joined { tag, client: Some(c) } => {
                let mut fields = json!({ "tag": tag, "client": c.program, "version": c.version });
                if let Some(host) = &c.host {
                    fields["host"] = json!(host);
                }
                if let Some(pid) = c.pid {
                    fields["pid"] = json!(pid);
                }
                (JOINED, fields)
            }
            Record::AbortJoin { tag } => (ABORTJOIN, json!({ "tag": tag })),
            Record::Offer { own, partitions } => (REBALOFFER, json!({ "own": own, "partitions": partitions })),
            Record::Confirm { partitions } => (REBALCONFIRM, json!({ "partitions": partitions })),
            Record::BeginRound { ends_at } => (BEGINREBAL, json!({ "timestamp": ends_at })),
            Record::EndRound => (ENDREBAL, json!({})),
            Record::Commit { offsets } => {
                (COMMIT, json!({ "partition_offsets": offsets.iter().map(|(p, o)| json!([p, o])).collect::<Vec<_>>() }))
            }
        };
        // Values built from `json!` always serialise.
        Outgoing::typed(class, &fields).unwrap_or(Outgoing::Typed { class: class.to_string(), json: "{}".into() })
    }

    /// A short name for displays: `joined`, `offer`, `commit`, ...
    pub fn kind(&self) -> &'static str {
        match self {
            Record::Joined { .. } => "joined",
            Record::AbortJoin { .. } => "abort_join",
            Record::Offer { .. } => "offer",
            Record::Confirm { .. } => "confirm",
            Record::BeginRound { .. } => "begin_round",
            Record::EndRound => "end_round",
            Record::Commit { .. } => "commit",
        }
    }
}
