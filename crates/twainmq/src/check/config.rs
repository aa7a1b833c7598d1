//! Topic and group configs that we read and 0.2.3 cannot.

#[allow(clippy::wildcard_imports)]
use super::*;

/// What in a config we read, but 0.2.3 cannot use as it is (it takes the
/// values as they are: a string for a count raises, two types with one id
/// decode as one), and group configs whose recorded topic is no topic name.
pub(super) fn config_compat(store: &Store, topic: &str, config: &crate::format::config::TopicConfig) -> Vec<String> {
    let mut out = Vec::new();
    // Read as the config was: a regular file, never through a link, bounded (it was just loaded).
    let Ok(mut file) = crate::sys::open::open_regular(&store.config_path(topic), false) else { return out };
    let mut bytes = Vec::new();
    if std::io::Read::read_to_end(&mut std::io::Read::take(&mut file, 4 << 20), &mut bytes).is_err() {
        return out;
    }
    let Ok(serde_json::Value::Object(map)) = serde_json::from_slice::<serde_json::Value>(&bytes) else { return out };
    for key in ["key_width", "partitions"] {
        if !map.get(key).is_some_and(|v| v.is_i64()) {
            out.push(format!(
                "\"{key}\" is {}, not a JSON integer: we read it, but 0.2.3 fails on it; write it as a number",
                map.get(key).map_or("missing".to_string(), |v| v.to_string())
            ));
        }
    }
    if let Some(serde_json::Value::Object(types)) = map.get("message_types") {
        let mut seen = std::collections::BTreeMap::new();
        for (name, id) in types {
            if !id.is_u64() {
                out.push(format!("message type {name:?} has id {id}, not a JSON integer: 0.2.3 fails on it"));
            }
            if let Some(other) = seen.insert(id.to_string(), name.clone()) {
                out.push(format!(
                    "message types {other:?} and {name:?} share id {id}: their messages cannot be told apart; give each its own id"
                ));
            }
        }
    }
    if topic.starts_with(crate::format::name::GROUP_PREFIX) {
        match config.extra.get("topic") {
            None => {}
            Some(serde_json::Value::String(t)) if crate::format::name::validate_topic(t).is_ok() => {}
            Some(v) => out.push(format!(
                "the group's recorded \"topic\" is {v}, which is no topic name: the group cannot be used until it is fixed or removed"
            )),
        }
    }
    out
}
