//! Where a window's topics, messages and groups come from: a TwainMQ store
//! folder today, a Kafka cluster next.
//!
//! The topics, messages and groups commands reach their data only through
//! [`Source`]: each domain says what it asks of a source in its service's
//! trait ([`Topics`], [`Messages`], [`Groups`]), and a store folder
//! ([`twainmq::Store`]) implements the three, in those services. A second
//! kind of source implements the same three traits and is what
//! [`crate::session::AppState::source`] hands out for a window showing one;
//! nothing above the services changes. The search, transfer and store
//! domains (scans, exports, folders) work on a store folder only.

use crate::groups::service::Groups;
use crate::messages::service::Messages;
use crate::topics::service::Topics;

/// A source of topics, messages and consumer groups, shared by a window's commands.
pub trait Source: Topics + Messages + Groups + Send + Sync {}

impl<T: Topics + Messages + Groups + Send + Sync> Source for T {}
