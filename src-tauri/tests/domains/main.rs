//! Each domain's service on real stores (copies of the 0.2.3 fixture, or stores made here):
//! what the webview gets back. One test binary for all domains, a module each.

mod cluster;
mod common;
mod group_lag_and_offsets;
mod groups;
mod messages;
mod search;
mod store;
mod topics;
mod transfer;
