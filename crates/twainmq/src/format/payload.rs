//! Message payloads and their JSON transport shape.

use serde::{Deserialize, Serialize};

/// Marks a bytes payload (0.2.3 calls it `_GZIP_MAGIC`, though nothing is gzipped).
pub const BYTES_MAGIC: u8 = 0xFC;
/// Marks a typed (dataclass) payload: then a 2-byte big-endian type id, then JSON.
pub const TYPED_MAGIC: u8 = 0xFB;
/// 0xF8..=0xFA are reserved by 0.2.3 for multipart messages (never written).
pub const MULTIPART: std::ops::RangeInclusive<u8> = 0xF8..=0xFA;

/// What a message carries.
#[derive(Debug, Clone, PartialEq)]
pub enum Payload {
    /// UTF-8 text (0.2.3: `str`).
    Text(String),
    /// Raw bytes (0.2.3: `bytes`).
    Bytes(Vec<u8>),
    /// A typed message (0.2.3: a registered dataclass).
    Typed(TypedPayload),
}

/// A typed message: its type id, the name the topic config gives that id, and its fields.
#[derive(Debug, Clone, PartialEq)]
pub struct TypedPayload {
    /// The type id written after the 0xFB marker (2 bytes, big-endian): the
    /// number the topic's `message_types` gives the type name.
    pub type_id: u16,
    /// `None` when the topic's `message_types` has no name for `type_id`.
    pub class: Option<String>,
    /// The fields as JSON text, exactly as stored. It is in the dialect Python's
    /// `json` reads: integers of any size, `NaN` and `Infinity` may appear.
    pub json: String,
}

impl TypedPayload {
    /// The fields as a JSON value, when they are standard JSON (integers past
    /// 64 bits become floats here; [`TypedPayload::json`] keeps them exact).
    pub fn fields(&self) -> Option<serde_json::Value> {
        serde_json::from_str(&self.json).ok()
    }
}

impl Payload {
    /// A short name of the kind: `str`, `bytes` or `dataclass`.
    pub fn kind(&self) -> &'static str {
        match self {
            Payload::Text(_) => "str",
            Payload::Bytes(_) => "bytes",
            Payload::Typed(_) => "dataclass",
        }
    }
}

/// JSON text written out verbatim when serialised with `serde_json`, so typed
/// fields keep integers of any size and Python's `NaN`/`Infinity` exactly.
#[derive(Debug, Clone, PartialEq)]
pub struct RawJson(pub String);

/// The name `serde_json` gives the struct it writes verbatim (its `RawValue`).
/// `RawValue` itself refuses Python's `NaN`, hence this direct use.
const RAW_TOKEN: &str = "$serde_json::private::RawValue";

impl Serialize for RawJson {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct(RAW_TOKEN, 1)?;
        st.serialize_field(RAW_TOKEN, &self.0)?;
        st.end()
    }
}

/// The JSON shape of a payload shared by the CLI, the fixtures and the app:
/// `{"type":"str","value":..}`, `{"type":"bytes","hex":..}`,
/// `{"type":"dataclass","class":..,"fields":{..}}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type")]
pub enum PayloadJson {
    /// A text payload.
    #[serde(rename = "str")]
    Str {
        /// The text.
        value: String,
    },
    /// A bytes payload.
    #[serde(rename = "bytes")]
    Bytes {
        /// The bytes in lower-case hex.
        hex: String,
    },
    /// A typed payload.
    #[serde(rename = "dataclass")]
    Dataclass {
        /// The type name; `null` when the topic's config names no type with its id.
        class: Option<String>,
        /// Written only when `class` is `null`: the id no type name is given.
        #[serde(skip_serializing_if = "Option::is_none")]
        type_id: Option<u16>,
        /// The fields, verbatim as stored (see [`TypedPayload::json`]).
        fields: RawJson,
    },
}

impl From<&Payload> for PayloadJson {
    fn from(p: &Payload) -> Self {
        match p {
            Payload::Text(s) => PayloadJson::Str { value: s.clone() },
            Payload::Bytes(b) => PayloadJson::Bytes { hex: hex::encode(b) },
            Payload::Typed(t) => PayloadJson::Dataclass {
                class: t.class.clone(),
                type_id: if t.class.is_none() { Some(t.type_id) } else { None },
                fields: RawJson(t.json.clone()),
            },
        }
    }
}

/// What can be sent: the payload before type names are resolved to ids.
#[derive(Debug, Clone, PartialEq)]
pub enum Outgoing {
    /// UTF-8 text (0.2.3: `str`).
    Text(String),
    /// Raw bytes (0.2.3: `bytes`).
    Bytes(Vec<u8>),
    /// A typed message by type name (the producer maps it to the topic's id),
    /// with its fields as compact JSON text (see [`TypedPayload::json`]).
    Typed {
        /// The type name; the topic's config must declare it.
        class: String,
        /// The fields: a JSON object, compact, with `ensure_ascii` escapes, as
        /// [`Outgoing::typed`] and [`Outgoing::typed_json`] make it.
        json: String,
    },
}

impl Outgoing {
    /// A typed message from any serialisable value, encoded as 0.2.3 encodes dataclasses.
    ///
    /// # Errors
    /// When `value` cannot be JSON (e.g. a map with non-string keys).
    pub fn typed(class: impl Into<String>, value: &(impl Serialize + ?Sized)) -> Result<Outgoing, serde_json::Error> {
        let json = crate::format::pyjson::to_compact(value)?;
        Ok(Outgoing::Typed { class: class.into(), json: String::from_utf8(json).unwrap_or_default() })
    }

    /// A typed message from JSON text, kept exact (big integers, `NaN`).
    ///
    /// # Errors
    /// A description of the syntax error.
    pub fn typed_json(class: impl Into<String>, text: &str) -> Result<Outgoing, String> {
        let json = crate::format::pyjson::python_compact(text)?;
        if !json.starts_with('{') {
            return Err("a typed message's fields are a JSON object, like {\"id\": 1}".into());
        }
        Ok(Outgoing::Typed { class: class.into(), json })
    }

    /// Parse the JSON payload shape (see [`PayloadJson`]) exactly: typed
    /// fields keep integers of any size. A bare JSON string is a text payload.
    ///
    /// # Errors
    /// A message saying what is wrong with the shape.
    pub fn from_json(text: &str) -> Result<Outgoing, String> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Shape<'a> {
            #[serde(rename = "type", borrow)]
            kind: std::borrow::Cow<'a, str>,
            value: Option<String>,
            hex: Option<String>,
            class: Option<String>,
            #[serde(default, rename = "type_id")]
            _type_id: Option<u16>,
            fields: Option<Box<serde_json::value::RawValue>>,
        }
        const SHAPES: &str = "a payload is {\"type\":\"str\",\"value\":..}, {\"type\":\"bytes\",\"hex\":..} or {\"type\":\"dataclass\",\"class\":..,\"fields\":{..}}";
        // (Only what starts as a string is tried as one: a failed parse costs an error's allocation.)
        if text.trim_start().starts_with('"') {
            if let Ok(s) = serde_json::from_str::<String>(text) {
                return Ok(Outgoing::Text(s));
            }
        }
        let shape: Shape<'_> = serde_json::from_str(text).map_err(|e| format!("{SHAPES} ({e})"))?;
        match &*shape.kind {
            "str" => shape.value.map(Outgoing::Text).ok_or_else(|| "a \"str\" payload needs a \"value\" string".into()),
            "bytes" => {
                let h = shape.hex.ok_or("a \"bytes\" payload needs a \"hex\" string")?;
                hex::decode(h.trim()).map(Outgoing::Bytes).map_err(|e| format!("\"hex\" is not valid hex: {e}"))
            }
            "dataclass" => {
                let class = shape.class.ok_or("a \"dataclass\" payload needs a \"class\"")?;
                let fields = shape.fields.ok_or("a \"dataclass\" payload needs \"fields\"")?;
                Outgoing::typed_json(class, fields.get())
            }
            other => Err(format!("unknown payload type {other:?}: {SHAPES}")),
        }
    }
}

/// A Rust type sent and received as a typed message under a fixed name, the
/// counterpart of a dataclass registered with 0.2.3 (`__message_type__` or
/// the class name).
///
/// # Examples
/// ```
/// #[derive(serde::Serialize, serde::Deserialize)]
/// struct Event { id: u32, text: String }
/// impl twainmq::TypedMessage for Event { const TYPE_NAME: &'static str = "Event"; }
/// ```
pub trait TypedMessage: Serialize + serde::de::DeserializeOwned {
    /// The type name the topic's config declares: 0.2.3's
    /// `__message_type__`, or the dataclass's name when it has none.
    const TYPE_NAME: &'static str;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_json_is_written_verbatim() {
        let p = PayloadJson::Dataclass {
            class: Some("Box".into()),
            type_id: None,
            fields: RawJson(r#"{"v":18446744073709551616,"n":NaN}"#.into()),
        };
        assert_eq!(
            serde_json::to_string(&p).expect("json"),
            r#"{"type":"dataclass","class":"Box","fields":{"v":18446744073709551616,"n":NaN}}"#
        );
    }

    #[test]
    fn payload_shapes_parse_exactly() {
        assert_eq!(Outgoing::from_json(r#""hi""#), Ok(Outgoing::Text("hi".into())));
        assert_eq!(Outgoing::from_json(r#"{"type":"bytes","hex":"00ff"}"#), Ok(Outgoing::Bytes(vec![0, 255])));
        assert_eq!(
            Outgoing::from_json(r#"{"type":"dataclass","class":"B","fields":{"v": 18446744073709551616}}"#),
            Ok(Outgoing::Typed { class: "B".into(), json: r#"{"v":18446744073709551616}"#.into() })
        );
        assert!(Outgoing::from_json(r#"{"type":"dataclass","class":"B","fields":[1]}"#).is_err());
        assert!(Outgoing::from_json(r#"{"type":"nope"}"#).is_err());
        assert!(Outgoing::from_json(r#"{"type":"str","value":"x","extra":1}"#).is_err());
    }
}
