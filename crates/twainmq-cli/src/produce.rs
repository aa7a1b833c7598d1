//! `twainmq produce`: one message from the command line, or JSON lines from
//! standard input (one by one, or in batches with `--batch`).

use std::io::{self, BufRead, Read, Write};

use anyhow::{anyhow, bail, Context, Result};
use twainmq::{Key, Outgoing, Store};

use crate::args::ProduceArgs;
use crate::render::{self, Sent};

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonlRecord {
    key: Box<serde_json::value::RawValue>,
    payload: Box<serde_json::value::RawValue>,
}

/// A key from JSON, as written: a number's digits (so 2^64 is refused as such,
/// not rounded), a string, and for free keys `{"hex": ...}` (bytes) or `null`
/// (no key), as `consume --json` writes them.
fn key_from_json(producer: &twainmq::Producer, raw: &serde_json::value::RawValue) -> Result<Key> {
    let text = raw.get().trim();
    if let Ok(s) = serde_json::from_str::<String>(text) {
        return Ok(producer.parse_key(&s)?);
    }
    if text.starts_with(|c: char| c == '-' || c.is_ascii_digit()) {
        return Ok(producer.parse_key(text)?);
    }
    if text == "null" || text.starts_with('{') {
        let key: Key = serde_json::from_str(text).map_err(|e| anyhow!("\"key\" {text} is not {{\"hex\": \"00ff\"}} ({e})"))?;
        return Ok(producer.check_key(key)?);
    }
    bail!("\"key\" must be a number, a string, {{\"hex\": ...}} (bytes) or null (no key), not {text}")
}

/// Longest input line `produce --jsonl` reads, in bytes, for a topic of
/// 0.2.3's format. No longer line holds a message that fits the 4096-byte line
/// limit (deflate shrinks at most about 1032 times, so a line's ~3,300
/// deflated bytes hold under 3.4 MB, and JSON spends at most 6 bytes on a
/// payload byte), and reading stops there, so an endless line cannot fill
/// memory. A topic with large messages takes lines of its largest message as hex.
const MAX_INPUT_LINE: usize = 64 << 20;

/// The longest input line for `producer`'s topic (see [`MAX_INPUT_LINE`]).
fn max_input_line(producer: &twainmq::Producer) -> usize {
    let large = producer
        .config()
        .max_message_bytes
        .map_or(0, |m| usize::try_from(m).unwrap_or(usize::MAX).saturating_mul(2).saturating_add(1 << 20));
    MAX_INPUT_LINE.max(large)
}

/// Most bytes `--value-file` reads: the largest message a topic allows (as
/// hex with --bytes-hex), and one more to tell a file that is too large.
fn value_limit(hex: bool) -> u64 {
    let max = twainmq::limits::MAX_MESSAGE_BYTES_LIMIT;
    if hex {
        2 * max + 2
    } else {
        max + 1
    }
}

/// The message `produce` sends without --jsonl: MESSAGE or the file's
/// contents, as text, bytes (--bytes) or hex (--bytes-hex).
fn single_payload(args: &ProduceArgs) -> Result<Outgoing> {
    let data = match &args.value_file {
        None => args.message.clone().unwrap_or_default().into_bytes(),
        Some(path) => {
            let limit = value_limit(args.bytes_hex);
            let mut data = Vec::new();
            if path.as_os_str() == "-" {
                io::stdin().lock().take(limit).read_to_end(&mut data).context("reading the message from standard input")?;
            } else {
                if path.is_dir() {
                    bail!("--value-file {} is a folder: give a file (or - for standard input)", path.display());
                }
                let f = std::fs::File::open(path).with_context(|| format!("opening --value-file {}", path.display()))?;
                f.take(limit).read_to_end(&mut data).with_context(|| format!("reading --value-file {}", path.display()))?;
            }
            if data.len() as u64 >= limit {
                bail!(
                    "the message is over {} bytes{}: no topic takes a message that large",
                    twainmq::limits::MAX_MESSAGE_BYTES_LIMIT,
                    if args.bytes_hex { " (as hex, twice that)" } else { "" }
                );
            }
            data
        }
    };
    if args.bytes_hex {
        let text = std::str::from_utf8(&data).map_err(|_| anyhow!("the message is not hex text (with --bytes-hex)"))?;
        return Ok(Outgoing::Bytes(hex::decode(text.trim()).context("the message is not valid hex (with --bytes-hex)")?));
    }
    if args.bytes {
        return Ok(Outgoing::Bytes(data));
    }
    String::from_utf8(data).map(Outgoing::Text).map_err(|e| {
        anyhow!(
            "the message is not UTF-8 text (byte {} is not): send it with --bytes to write it as a bytes message",
            e.utf8_error().valid_up_to() + 1
        )
    })
}

/// One input line of `produce --jsonl` as a message, or `None` for a blank
/// line. Every way a line can be bad is an error here, before anything of it
/// is sent, so the caller sends everything before it and names it.
fn parse_input_line(producer: &twainmq::Producer, bytes: &[u8]) -> Result<Option<(Key, Outgoing)>> {
    let max_line = max_input_line(producer);
    if bytes.len() > max_line {
        if producer.config().max_message_bytes.is_some() {
            bail!(
                "the line is over {} MiB long (reading stopped there): no message that long fits the topic's largest message",
                max_line >> 20
            );
        }
        bail!("the line is over {} MiB long (reading stopped there): no message that long fits the 4096-byte line limit", max_line >> 20);
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let at = e.valid_up_to();
        let byte = bytes.get(at).map_or(String::new(), |b| format!(" (0x{b:02x})"));
        anyhow!(
            "the line is not UTF-8 text: byte {}{byte} is not valid UTF-8. JSON lines must be UTF-8; send binary payloads as {{\"type\": \"bytes\", \"hex\": ...}}",
            at + 1
        )
    })?;
    // A byte-order mark (editors on Windows write one) starts the first line.
    let text = text.trim_start_matches('\u{feff}');
    if text.trim().is_empty() {
        return Ok(None);
    }
    let rec: JsonlRecord = serde_json::from_str(text).context("not a {\"key\": K, \"payload\": P} object")?;
    let key = key_from_json(producer, &rec.key)?;
    let payload = Outgoing::from_json(rec.payload.get()).map_err(|e| anyhow!(e))?;
    Ok(Some((key, payload)))
}

/// The offset of a message just sent. A message is reported as written only
/// once it is found in the store: when it cannot be (its file was deleted or
/// replaced since), this is an error, never a `null` offset.
fn offset_of(producer: &mut twainmq::Producer, d: &twainmq::Delivery) -> Result<u64> {
    producer.resolve_offset(d).map_err(|e| {
        anyhow::Error::new(e).context(format!(
            "the message was written to partition {} ({}) but could not be found there afterwards, so it may not be in the topic",
            d.partition,
            d.path.display()
        ))
    })
}

pub(crate) fn run(store: &Store, args: ProduceArgs) -> Result<()> {
    if args.batch && !args.jsonl {
        bail!("--batch sends lines of standard input in batches: use it with --jsonl");
    }
    let mut producer = store.producer(&args.topic)?.with_offsets(true);
    let mut out = io::stdout().lock();
    if !args.jsonl {
        let key = if args.no_key {
            producer.check_key(Key::Null)?
        } else if let Some(h) = &args.key_hex {
            producer.check_key(Key::Bytes(hex::decode(h.trim()).context("--key-hex is not valid hex")?))?
        } else {
            producer.parse_key(args.key.as_deref().unwrap_or_default())?
        };
        let payload = single_payload(&args)?;
        let d = producer.send(&key, &payload)?;
        let offset = offset_of(&mut producer, &d)?;
        return render::emit(&mut out, &Sent { partition: d.partition, offset }, args.json);
    }
    // With --batch, lines already read in are sent as one batch (whole lines
    // per write), so a fast pipe costs a write per batch, not per message;
    // before waiting for more input, whatever is pending is sent, so a slow
    // pipe adds no delay. Otherwise each message is sent alone, in input order,
    // which is what keeps "a killed producer wrote a prefix of its input" true:
    // a batch spans several partition files and no write covers them all.
    // Input is read as bytes: a line that is not UTF-8 is a bad line like any
    // other (everything before it sent, the line named), not a read error.
    let mut input = io::BufReader::with_capacity(1 << 16, io::stdin().lock());
    let mut sent = 0u64;
    let mut pending: Vec<(Key, Outgoing)> = Vec::new();
    let mut pending_lines: Vec<usize> = Vec::new();
    let mut line = Vec::new();
    let mut n = 0usize;
    loop {
        let more_ready = input.buffer().contains(&b'\n');
        if !pending.is_empty() && (!more_ready || pending.len() >= 1000) {
            send_pending(&mut producer, &mut pending, &mut pending_lines, &mut sent)?;
        }
        line.clear();
        // One byte past the limit tells a line that is too long from one that just fits.
        let limit = u64::try_from(max_input_line(&producer)).unwrap_or(u64::MAX).saturating_add(1);
        if input.by_ref().take(limit).read_until(b'\n', &mut line).context("reading standard input")? == 0 {
            break;
        }
        n += 1;
        let (key, payload) = match parse_input_line(&producer, &line) {
            Ok(Some(m)) => m,
            Ok(None) => continue,
            Err(e) => {
                // Everything before the bad line goes out first, as if sent one by one.
                send_pending(&mut producer, &mut pending, &mut pending_lines, &mut sent)?;
                return Err(e.context(format!("input line {n} (messages before it were sent: {sent})")));
            }
        };
        if args.batch {
            pending.push((key, payload));
            pending_lines.push(n);
            continue;
        }
        let context = |sent: u64| format!("input line {n} (messages before it were sent: {sent})");
        let d = producer.send(&key, &payload).map_err(|e| anyhow::Error::new(e).context(context(sent)))?;
        if args.json {
            let offset = offset_of(&mut producer, &d).map_err(|e| e.context(context(sent)))?;
            sent += 1;
            render::emit(&mut out, &Sent { partition: d.partition, offset }, true)?;
        } else {
            sent += 1;
        }
    }
    send_pending(&mut producer, &mut pending, &mut pending_lines, &mut sent)?;
    out.flush()?;
    eprintln!("sent {sent} messages to {}", args.topic);
    Ok(())
}

/// Send the pending messages (read from input lines `lines`) as one batch.
/// A batch refusing a message writes nothing: then they go one by one, so
/// every message before the bad one is sent and the error names its line.
fn send_pending(
    producer: &mut twainmq::Producer,
    pending: &mut Vec<(Key, Outgoing)>,
    lines: &mut Vec<usize>,
    sent: &mut u64,
) -> Result<()> {
    let (Some(first), Some(last)) = (lines.first().copied(), lines.last().copied()) else { return Ok(()) };
    // A lone message goes out alone: its error then names just its line.
    let batch = if pending.len() > 1 { Some(producer.send_batch(pending)) } else { None };
    match batch {
        Some(Ok(n)) => *sent += n as u64,
        Some(Err(e)) if !e.is_invalid_message() => {
            return Err(anyhow::Error::new(e).context(format!(
                "input lines {first}-{last}, sent as one batch (messages before it were sent: {sent}; of the batch, each partition \
                 holds the lines written before the failure, in order: `twainmq consume` shows which)"
            )))
        }
        _ => {
            for ((key, payload), line) in pending.iter().zip(lines.iter()) {
                producer
                    .send(key, payload)
                    .map_err(|e| anyhow::Error::new(e).context(format!("input line {line} (messages before it were sent: {sent})")))?;
                *sent += 1;
            }
        }
    }
    pending.clear();
    lines.clear();
    Ok(())
}
