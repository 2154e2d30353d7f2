//! A machine id from a node list, as NoNoncense derives one: this host's place (from 0)
//! in a list of host names, one a line, the same list on every host.

/// Why no machine id came from the list.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ListError {
    /// This host is not in the list.
    #[error("host {host} is not in the node list ({names} names)")]
    NotListed {
        /// This host's name.
        host: String,
        /// How many names the list holds.
        names: usize,
    },
    /// A name appears twice: two hosts would take one id, or one host two.
    #[error("line {line}: {name} is listed twice (first on line {first})")]
    Twice {
        /// The name.
        name: String,
        /// Its first line.
        first: usize,
        /// The line of the second.
        line: usize,
    },
    /// More names than machine ids.
    #[error("{0} names, more than the 512 machine ids")]
    TooMany(usize),
    /// A line that is not a host name.
    #[error("line {0}: not a host name (letters, digits, '-', '_' and '.' only)")]
    NotAName(usize),
}

/// This host's name as the kernel gives it (`uname -n`), read once a process.
pub fn host_name() -> &'static str {
    static NAME: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    NAME.get_or_init(|| {
        rustix::system::uname()
            .nodename()
            .to_string_lossy()
            .into_owned()
    })
}

/// The machine id of `host` in `list`: its place among the names, counted from 0. Blank
/// lines and lines starting with `#` are skipped and take no place; names compare
/// without regard to case, and a name matches the host's full name or its first label
/// (`web-3` matches `web-3.example.com`, and the other way round).
pub fn from_list(list: &str, host: &str) -> Result<u32, ListError> {
    let short = |n: &str| n.split('.').next().unwrap_or(n).to_ascii_lowercase();
    let host_l = host.trim_end_matches('.').to_ascii_lowercase();
    let mut names: Vec<(String, usize)> = Vec::new();
    for (i, line) in list.lines().enumerate() {
        let name = line.trim();
        if name.is_empty() || name.starts_with('#') {
            continue;
        }
        if !name
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
        {
            return Err(ListError::NotAName(i + 1));
        }
        let name = name.trim_end_matches('.').to_ascii_lowercase();
        if let Some((_, first)) = names.iter().find(|(n, _)| *n == name) {
            return Err(ListError::Twice {
                name,
                first: *first,
                line: i + 1,
            });
        }
        names.push((name, i + 1));
    }
    if names.len() > 512 {
        return Err(ListError::TooMany(names.len()));
    }
    let exact = names.iter().position(|(n, _)| *n == host_l);
    let found = exact.or_else(|| {
        let matches: Vec<usize> = names
            .iter()
            .enumerate()
            .filter(|(_, (n, _))| short(n) == short(&host_l))
            .map(|(i, _)| i)
            .collect();
        // A short name that two listed names share names neither.
        (matches.len() == 1).then(|| matches[0])
    });
    found.map(|i| i as u32).ok_or(ListError::NotListed {
        host: host.to_string(),
        names: names.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_s_place_in_the_list_is_its_id() {
        let list = "# fleet\nweb-1\n\nweb-2.example.com\nWEB-3\n";
        assert_eq!(from_list(list, "web-1"), Ok(0));
        assert_eq!(from_list(list, "web-2"), Ok(1));
        assert_eq!(from_list(list, "web-2.example.com"), Ok(1));
        assert_eq!(from_list(list, "web-3.internal"), Ok(2));
        assert_eq!(
            from_list(list, "db-1"),
            Err(ListError::NotListed {
                host: "db-1".into(),
                names: 3
            })
        );
        assert!(matches!(
            from_list("a\nb\nA\n", "a"),
            Err(ListError::Twice {
                line: 3,
                first: 1,
                ..
            })
        ));
        assert_eq!(from_list("a b\n", "a"), Err(ListError::NotAName(1)));
        let many: String = (0..513).map(|i| format!("h{i}\n")).collect();
        assert_eq!(from_list(&many, "h1"), Err(ListError::TooMany(513)));
    }
}
