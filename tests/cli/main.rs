//! Integration tests: every test runs the real `veilkit` binary. One test binary for the
//! whole suite keeps link time down on small machines.

mod bench;
mod breach;
mod breach_trust;
mod common;
mod conventions;
mod download;
mod fuzz_replay;
mod generated;
mod golden;
mod ids;
mod json;
mod keys;
mod nonce;
mod nonce_pg;
mod okon;
mod pg;
mod pg_cluster;
mod records;
mod records_age;
mod records_batch;
mod records_remote;
mod records_s3;
mod records_v1;
mod records_v2;
mod references;
mod serve;
mod serve_bodies;
mod tiers;
mod trust;
