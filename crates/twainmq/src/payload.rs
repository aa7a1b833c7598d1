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
    pub type_id: u16,
    /// `None` when the topic's `message_types` has no name for `type_id`.
    pub class: Option<String>,
    pub fields: serde_json::Value,
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

/// The JSON shape of a payload shared by the CLI, the fixtures and the app:
/// `{"type":"str","value":..}`, `{"type":"bytes","hex":..}`,
/// `{"type":"dataclass","class":..,"fields":{..}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", deny_unknown_fields)]
pub enum PayloadJson {
    #[serde(rename = "str")]
    Str { value: String },
    #[serde(rename = "bytes")]
    Bytes { hex: String },
    #[serde(rename = "dataclass")]
    Dataclass {
        class: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        type_id: Option<u16>,
        fields: serde_json::Value,
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
                fields: t.fields.clone(),
            },
        }
    }
}

/// What can be sent: the payload before type names are resolved to ids.
#[derive(Debug, Clone, PartialEq)]
pub enum Outgoing {
    Text(String),
    Bytes(Vec<u8>),
    /// A typed message by type name; the producer maps it to the topic's id.
    Typed {
        class: String,
        fields: serde_json::Value,
    },
}

impl TryFrom<PayloadJson> for Outgoing {
    type Error = String;
    fn try_from(p: PayloadJson) -> Result<Self, String> {
        Ok(match p {
            PayloadJson::Str { value } => Outgoing::Text(value),
            PayloadJson::Bytes { hex } => Outgoing::Bytes(hex::decode(hex.trim()).map_err(|e| format!("\"hex\" is not valid hex: {e}"))?),
            PayloadJson::Dataclass { class: Some(class), fields, .. } => Outgoing::Typed { class, fields },
            PayloadJson::Dataclass { class: None, .. } => return Err("a dataclass payload needs a \"class\"".into()),
        })
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
    const TYPE_NAME: &'static str;
}
