//! `twainmq mirror`: thin over `twainmq_kafka::mirror`. Progress goes to
//! standard error as it comes; the summary is rendered in `render`.

use std::io::{self, IsTerminal, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::{bail, Result};
use twainmq::{KeyType, Store};
use twainmq_kafka::{Direction, Endpoint, ForeignValues, InOptions, MirrorSpec, Progress, Sasl, SaslMechanism, Secret, Tls};

use crate::args::MirrorArgs;
use crate::render;

/// The (source, target) pairs: `SOURCE:TARGET`, `--as NAME` for one topic, else the same name.
fn pairs(args: &MirrorArgs) -> Result<Vec<(String, String)>> {
    if args.as_name.is_some() && args.topics.len() != 1 {
        bail!("--as names the target of one topic; for several, write each as SOURCE:TARGET");
    }
    let mut out = Vec::new();
    for t in &args.topics {
        let (s, d) = match t.split_once(':') {
            Some((s, d)) if !s.is_empty() && !d.is_empty() => (s.to_string(), d.to_string()),
            Some(_) => bail!("{t:?}: write a renamed topic as SOURCE:TARGET"),
            None => (t.clone(), args.as_name.clone().unwrap_or_else(|| t.clone())),
        };
        if out.iter().any(|(_, od): &(String, String)| *od == d) {
            bail!("two topics would be mirrored into {d:?}");
        }
        out.push((s, d));
    }
    Ok(out)
}

fn endpoint(args: &MirrorArgs, url: &str) -> Result<Endpoint> {
    let mut ep = Endpoint::parse(url)?;
    ep.request_timeout = args.timeout;
    if args.tls || args.tls_ca.is_some() || args.tls_cert.is_some() {
        ep.tls = Some(Tls { ca: args.tls_ca.clone(), client: args.tls_cert.clone().zip(args.tls_key.clone()) });
    }
    if let Some(m) = &args.sasl_mechanism {
        let mechanism =
            SaslMechanism::parse(m).ok_or_else(|| anyhow::anyhow!("--sasl-mechanism {m:?}: use PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512"))?;
        let password = match (&args.sasl_password_file, &args.sasl_password_env) {
            (Some(f), _) => Secret::File(f.clone()),
            (None, Some(v)) => Secret::Env(v.clone()),
            (None, None) => {
                bail!("SASL needs its password from --sasl-password-file FILE or --sasl-password-env VAR (never on the command line)")
            }
        };
        ep.sasl = Some(Sasl { mechanism, username: args.sasl_username.clone().unwrap_or_default(), password });
    }
    Ok(ep)
}

fn progress_line(p: &Progress) -> String {
    match p {
        Progress::Started { topic, from, created } => {
            let from: Vec<String> = from.iter().map(u64::to_string).collect();
            format!("mirror: {topic}: {}from offsets {}", if *created { "target created; " } else { "" }, from.join(","))
        }
        Progress::Mirrored { topic, mirrored, left: Some(left) } => format!("mirror: {topic}: {mirrored} mirrored, {left} left"),
        Progress::Mirrored { topic, mirrored, left: None } => format!("mirror: {topic}: {mirrored} mirrored"),
        Progress::Retrying { topic, reason, after_secs } => format!("mirror: {topic}: {reason}; trying again in {after_secs:.1} s"),
        Progress::Waiting { target, reason } => format!("mirror: waiting for {target}: {reason}"),
        other => format!("mirror: {other:?}"),
    }
}

pub(crate) fn run(store: &Store, args: &MirrorArgs) -> Result<ExitCode> {
    let (direction, url) = match (&args.to, &args.from) {
        (Some(u), None) => (Direction::ToKafka, u),
        (None, Some(u)) => (Direction::FromKafka, u),
        _ => bail!("say --to kafka://HOST:PORT or --from kafka://HOST:PORT"),
    };
    let mut spec = MirrorSpec::new(endpoint(args, url)?, pairs(args)?);
    spec.follow = args.follow;
    spec.groups = args.groups;
    spec.lease_timeout = args.lease_timeout;
    spec.foreign = InOptions {
        values: match args.values.as_str() {
            "auto" => ForeignValues::Auto,
            "text" => ForeignValues::Text,
            "bytes" => ForeignValues::Bytes,
            v => bail!("--values {v:?}: use auto, text or bytes"),
        },
        drop_headers: args.drop_headers,
    };
    if let Some(kt) = &args.key_type {
        spec.key_type =
            Some(KeyType::parse(kt).ok_or_else(|| {
                anyhow::anyhow!("--key-type {kt:?}: use any, text, bytes, u8, u16, u32, u64 or charN (N from 1 to 3257)")
            })?);
    }
    if args.large_messages || args.max_message_bytes.is_some() {
        spec.max_message_bytes = Some(args.max_message_bytes.unwrap_or(twainmq::limits::DEFAULT_MAX_MESSAGE_BYTES));
    }
    spec.message_types = args.message_types.clone();
    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    let _ = ctrlc::set_handler(move || s.store(true, Ordering::SeqCst));
    let tty = io::stderr().is_terminal();
    let mut err = io::stderr();
    let summary = twainmq_kafka::mirror(store, direction, &spec, &stop, &mut |p| {
        let line = progress_line(&p);
        // On a terminal the running count rewrites its line; elsewhere each is a line of its own.
        let _ = match (&p, tty) {
            (Progress::Mirrored { left: Some(0), .. }, true) => writeln!(err, "\r{line}\x1b[K"),
            (Progress::Mirrored { .. }, true) => write!(err, "\r{line}\x1b[K"),
            _ => writeln!(err, "{line}"),
        };
    })?;
    render::emit(&mut io::stdout().lock(), &render::MirrorSummary(summary.clone()), args.json)?;
    // An interrupted one-shot mirror did not finish: say so in the exit code too (as a shell does).
    Ok(if summary.interrupted && !args.follow { ExitCode::from(130) } else { ExitCode::SUCCESS })
}
