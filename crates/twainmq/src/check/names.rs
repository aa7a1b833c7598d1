//! The store's names: those Windows cannot hold, and those equal but for case.

#[allow(clippy::wildcard_imports)]
use super::*;

/// The problems of the store's names alone (`windows_name`, `case_twin`): a
/// listing, no file read, so cheap enough for every refresh of a view.
///
/// # Errors
/// I/O errors listing the store.
pub fn check_names(store: &Store) -> Result<Vec<Problem>> {
    Ok(name_problems(&store.list_topics()?, &store.list_groups()?))
}

/// Names in the store that Windows cannot hold (stores move between machines
/// on NTFS disks): device names and trailing dots, and names equal but for case.
pub(super) fn name_problems(topics: &[String], groups: &[String]) -> Vec<Problem> {
    let mut out = Vec::new();
    let problem = |topic: String, kind: &'static str, message: String| Problem {
        topic,
        partition: None,
        file: None,
        line: None,
        offset: None,
        kind,
        message,
    };
    let named: Vec<(String, String)> = topics
        .iter()
        .map(|t| (t.clone(), format!("topic {t:?}")))
        .chain(groups.iter().map(|g| (crate::format::name::group_topic(g), format!("group {g:?}"))))
        .collect();
    for (topic, what) in &named {
        // A group's folder and config are named `--group--NAME`: that is what Windows must hold.
        if let Some(p) = crate::format::name::windows_problem(topic) {
            let there = if crate::sys::DEVICE_NAMES_ARE_DEVICES {
                "so it is not opened here"
            } else {
                "so this store cannot be used on Windows as it is"
            };
            out.push(problem(
                topic.clone(),
                "windows_name",
                format!("{what}: {p}; {there}. Copy it to a topic with another name (twainmq copy) and delete it"),
            ));
        }
    }
    let mut lower: std::collections::BTreeMap<String, Vec<&str>> = std::collections::BTreeMap::new();
    for (topic, _) in &named {
        lower.entry(topic.to_ascii_lowercase()).or_default().push(topic);
    }
    for twins in lower.values().filter(|v| v.len() > 1) {
        for t in twins {
            out.push(problem(
                (*t).to_string(),
                "case_twin",
                format!("{twins:?} differ only in case: copied to a disk that ignores case (NTFS, macOS) they become one folder and one config. Rename all but one (copy, then delete)"),
            ));
        }
    }
    out
}
