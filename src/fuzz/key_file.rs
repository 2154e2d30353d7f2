//! The key file parser on arbitrary text: no panic, and a parsed ring writes back to a
//! text that parses to the same keys.
use crate::keys::Keyring;

/// One input.
pub fn run(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(ring) = Keyring::parse(text) {
        let again = Keyring::parse(&ring.to_text()).unwrap();
        assert_eq!(again.keys().len(), ring.keys().len());
        for (a, b) in again.keys().iter().zip(ring.keys()) {
            assert_eq!((a.id(), a.bytes()), (b.id(), b.bytes()));
        }
    }
}
