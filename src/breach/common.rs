//! The most common passwords, compiled into the binary so that a fresh install can check
//! passwords at once: the 30,000 most common passwords of zxcvbn's frequency list
//! (MIT licence; derived from Mark Burnett's public-domain 10 million password dataset),
//! in rank order, one per line, in `common-passwords.txt`.

use std::sync::OnceLock;

static LIST: &str = include_str!("common-passwords.txt");

/// The number of passwords in the list.
pub const SIZE: u32 = 30_000;

fn sorted() -> &'static [(&'static [u8], u32)] {
    static SORTED: OnceLock<Vec<(&'static [u8], u32)>> = OnceLock::new();
    SORTED.get_or_init(|| {
        let mut v: Vec<(&[u8], u32)> = LIST
            .lines()
            .enumerate()
            .map(|(i, p)| (p.as_bytes(), i as u32 + 1))
            .collect();
        v.sort_unstable();
        v
    })
}

/// The rank (1 = most common) of exactly this password, if it is in the list.
pub fn rank(password: &[u8]) -> Option<u32> {
    let list = sorted();
    list.binary_search_by(|(p, _)| (*p).cmp(password))
        .ok()
        .map(|i| list[i].1)
}

/// The rank of the password's lower-case form (the list is lower case), if any.
pub fn rank_ignoring_case(password: &[u8]) -> Option<u32> {
    rank(&password.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_whole_and_ranked() {
        assert_eq!(LIST.lines().count() as u32, SIZE);
        assert_eq!(rank(b"123456"), Some(1));
        assert_eq!(rank(b"password"), Some(2));
        assert_eq!(rank(b"Password"), None);
        assert_eq!(rank_ignoring_case(b"PassWord"), Some(2));
        assert_eq!(rank(b"correct horse battery staple"), None);
        assert_eq!(rank(b""), None);
        // Every entry finds itself.
        for (i, p) in LIST.lines().enumerate() {
            assert_eq!(rank(p.as_bytes()), Some(i as u32 + 1));
        }
    }
}
