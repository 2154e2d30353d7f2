
use builtin;
use str;

set edit:completion:arg-completer[veilkit] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'veilkit'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'veilkit'= {
            cand -q 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --quiet 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand keygen 'Generate a master key, or add a new current key to a keyring'
            cand keys 'Show the ids and fingerprints of a keyring (never the keys)'
            cand breach 'Build a Pwned Passwords index once, then check hashes and passwords in microseconds'
            cand encode 'Turn database ids into opaque ids (AES-128, UUIDv8 by default)'
            cand decode 'Turn opaque ids back into database ids, rejecting forged ones'
            cand reencode 'Rewrite opaque ids made with older keys under the current key'
            cand ids 'Ids inside a database: SQL functions identical to encode and decode'
            cand nonce 'Make unique counter, sortable or encrypted nonces of 64, 96 or 128 bits'
            cand records 'Encrypt record files at rest and still fetch one record by key in microseconds'
            cand bench 'Measure ids, nonces, codecs, breach lookups and record files on this machine'
            cand completions 'Print the completion script for a shell'
            cand man 'Print the manual page, or write every page into a directory'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'veilkit;keygen'= {
            cand -o 'Write the key to FILE (created 0600, atomically) instead of standard output'
            cand --output 'Write the key to FILE (created 0600, atomically) instead of standard output'
            cand --add 'Append a new key to the keyring FILE; it becomes the current key'
            cand -q 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --quiet 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand -f 'Replace FILE if it exists'
            cand --force 'Replace FILE if it exists'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;keys'= {
            cand --key-file 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)'
            cand -q 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --quiet 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --json 'Print a JSON array of the keys instead of the table (schema: docs/JSON.md)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;breach'= {
            cand -q 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --quiet 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand build 'Build a dump (file, stdin or per-prefix directory) into an index'
            cand download 'Download every range of the Pwned Passwords API straight into an index'
            cand update 'Refresh an index from the range API, fetching only the ranges that changed'
            cand query 'Look up hashes (arguments or stdin) or passwords (stdin) in an index'
            cand check 'Check passwords typed at a hidden prompt'
            cand info 'Show an index''s kind, size, counts and format'
            cand verify 'Check an index end to end: structure and every checksum'
            cand export-ranges 'Write an index as the 1,048,576 range files the HIBP range API serves'
            cand compress-ranges 'Compress every range body of an index ahead, for serve''s Zstandard answers'
            cand merge 'Replace the prefixes of an index that a directory of range files holds'
            cand diff 'List the hashes added, removed and re-counted between two indexes'
            cand serve 'Serve the HIBP range API (and /check) from indexes on a local port'
            cand okon 'Answer as okon-cli does (for keepassxc-cli analyze --okon)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'veilkit;breach;build'= {
            cand -o 'The index to write'
            cand --output 'The index to write'
            cand --kind 'The hash kind [default: detected from the first line]'
            cand --tier 'How much the index keeps'
            cand -j 'Threads building filter shards [default: the number of processors]'
            cand --threads 'Threads building filter shards [default: the number of processors]'
            cand -q 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --quiet 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --allow-partial 'Build from a per-prefix directory that lacks range files (an interrupted download): the index is marked partial, and `info` and `query` say so'
            cand -f 'Replace INDEX if it exists'
            cand --force 'Replace INDEX if it exists'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;breach;download'= {
            cand -o 'The index to write'
            cand --output 'The index to write'
            cand --kind 'The hash kind'
            cand --tier 'How much the index keeps (as for `build`)'
            cand --source 'A mirror: a URL with `{prefix}`, or the base of a range API'
            cand --parallel 'Requests in flight at once'
            cand --retries 'Attempts after the first for each range'
            cand --timeout 'Seconds one request may take, body included'
            cand --cacert 'Extra trusted certificates (PEM file), beside the system''s'
            cand --accept-encoding 'Content codings to ask for, most wanted first: zstd, gzip, br, identity. Brotli saves about a twentieth of gzip''s bytes and takes twice its CPU to decode'
            cand --checkpoint-every 'Ranges between two checkpoints of the index being written: at most this many are kept in the journal (fewer: a smaller journal, more syncs)'
            cand -j 'Threads building filter shards [default: the number of processors]'
            cand --threads 'Threads building filter shards [default: the number of processors]'
            cand -q 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --quiet 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand -f 'Replace INDEX if it exists'
            cand --force 'Replace INDEX if it exists'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;breach;update'= {
            cand -o 'Write the new index here instead of replacing INDEX'
            cand --output 'Write the new index here instead of replacing INDEX'
            cand --source 'A mirror: a URL with `{prefix}`, or the base of a range API'
            cand --parallel 'Requests in flight at once'
            cand --retries 'Attempts after the first for each range'
            cand --timeout 'Seconds one request may take, body included'
            cand --cacert 'Extra trusted certificates (PEM file), beside the system''s'
            cand --accept-encoding 'Content codings to ask for, most wanted first: zstd, gzip, br, identity. Brotli saves about a twentieth of gzip''s bytes and takes twice its CPU to decode'
            cand --checkpoint-every 'Ranges between two checkpoints of the index being written: at most this many are kept in the journal (fewer: a smaller journal, more syncs)'
            cand -q 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --quiet 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --json 'Print the summary as one JSON object on standard output'
            cand -f 'Replace NEW if it exists'
            cand --force 'Replace NEW if it exists'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;breach;query'= {
            cand -i 'The index [default: none; only --passwords works without one]'
            cand --index 'The index [default: none; only --passwords works without one]'
            cand --filter 'A filter built from INDEX (`breach build --tier filter INDEX`), read into memory: hashes it rules out are answered without touching INDEX'
            cand -q 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --quiet 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --passwords 'Read passwords from standard input instead of hashes'
            cand -0 'Lines on standard input end with NUL, not newline (a password may hold any other byte)'
            cand --null 'Lines on standard input end with NUL, not newline (a password may hold any other byte)'
            cand --keep-going 'Go on past a bad line: it is reported on stderr with its number and answered `?`, so output lines stay aligned with input lines; the status is 2 at the end'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;breach;check'= {
            cand -i 'The index [default: the embedded list of common passwords]'
            cand --index 'The index [default: the embedded list of common passwords]'
            cand --filter 'A filter built from INDEX, read into memory: passwords it rules out are answered without touching INDEX'
            cand -q 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --quiet 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand -0 'Lines on standard input (not a terminal) end with NUL, not newline'
            cand --null 'Lines on standard input (not a terminal) end with NUL, not newline'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;breach;info'= {
            cand -q 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --quiet 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --json 'Print one JSON object instead of `key: value` lines (schema: docs/JSON.md)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;breach;verify'= {
            cand -q 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --quiet 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --json 'Print the result as one JSON object on standard output (schema: docs/JSON.md); a problem is still named on standard error, with status 2'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;breach;export-ranges'= {
            cand -i 'The index'
            cand --index 'The index'
            cand -o 'The directory to create'
            cand --output 'The directory to create'
            cand -q 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --quiet 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --skip-empty 'Write files only for prefixes that hold hashes'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;breach;compress-ranges'= {
            cand -i 'The exact index'
            cand --index 'The exact index'
            cand -o 'The file to write'
            cand --output 'The file to write'
            cand --level 'Zstandard''s level, 1 to 22'
            cand -j 'Threads [default: the number of processors]'
            cand --threads 'Threads [default: the number of processors]'
            cand -q 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --quiet 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand -f 'Replace FILE if it exists'
            cand --force 'Replace FILE if it exists'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;breach;merge'= {
            cand -o 'The new index'
            cand --output 'The new index'
            cand -q 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --quiet 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand -f 'Replace NEW_INDEX if it exists'
            cand --force 'Replace NEW_INDEX if it exists'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;breach;diff'= {
            cand -q 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --quiet 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --json 'JSON Lines instead: one object per changed hash ({"type":"added"|"removed"| "recounted", "hash", "count" or "old_count" and "new_count"}), then one {"type":"summary"} (schema: docs/JSON.md)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;breach;serve'= {
            cand -i 'An index to serve (give -i twice for a SHA-1 and an NTLM index)'
            cand --index 'An index to serve (give -i twice for a SHA-1 and an NTLM index)'
            cand --listen 'The address or host name and port to listen on (`localhost:8000`, `[::1]:8000`; port 0: any free port). The first line on stderr is `veilkit: listening on http://ADDR:PORT`, with --quiet or without it'
            cand -j 'Worker threads [default: the number of processors]'
            cand --threads 'Worker threads [default: the number of processors]'
            cand --max-connections 'Connections served at once'
            cand --tls-cert 'Serve HTTPS with this certificate chain (PEM, the server''s certificate first), as openssl, mkcert or certbot write it; needs --tls-key'
            cand --tls-key 'The private key of --tls-cert (PEM: PKCS#8, PKCS#1 RSA or SEC1 EC)'
            cand --zstd-bodies 'Range bodies compressed ahead by `breach compress-ranges` from one of the indexes (give it once per index): sent as they are to clients that ask for Zstandard, instead of compressing each answer. Refused unless made from that very index'
            cand -q 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --quiet 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --in-memory 'Read the indexes into memory (huge pages where the system allows) instead of mapping them: single lookups (/check) about 1.6x faster at 100M hashes, for the memory of the files; ranges are bound by formatting and HTTP, not memory. A reload (SIGHUP) reads the new files while the old ones are served, so it needs their memory again meanwhile: a file larger than the memory available is refused, at the start and on a reload (which then keeps serving the old ones)'
            cand --no-verify 'Start without verifying the indexes first (every checksum, about 1 s per GB): lookups still check the tables they read, but a damaged record would go unnoticed'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;breach;okon'= {
            cand --path 'The SHA-1 index (any tier; any file name)'
            cand --hash 'The SHA-1 hash, 40 hex digits in either case'
            cand -q 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --quiet 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;breach;help'= {
            cand build 'Build a dump (file, stdin or per-prefix directory) into an index'
            cand download 'Download every range of the Pwned Passwords API straight into an index'
            cand update 'Refresh an index from the range API, fetching only the ranges that changed'
            cand query 'Look up hashes (arguments or stdin) or passwords (stdin) in an index'
            cand check 'Check passwords typed at a hidden prompt'
            cand info 'Show an index''s kind, size, counts and format'
            cand verify 'Check an index end to end: structure and every checksum'
            cand export-ranges 'Write an index as the 1,048,576 range files the HIBP range API serves'
            cand compress-ranges 'Compress every range body of an index ahead, for serve''s Zstandard answers'
            cand merge 'Replace the prefixes of an index that a directory of range files holds'
            cand diff 'List the hashes added, removed and re-counted between two indexes'
            cand serve 'Serve the HIBP range API (and /check) from indexes on a local port'
            cand okon 'Answer as okon-cli does (for keepassxc-cli analyze --okon)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'veilkit;breach;help;build'= {
        }
        &'veilkit;breach;help;download'= {
        }
        &'veilkit;breach;help;update'= {
        }
        &'veilkit;breach;help;query'= {
        }
        &'veilkit;breach;help;check'= {
        }
        &'veilkit;breach;help;info'= {
        }
        &'veilkit;breach;help;verify'= {
        }
        &'veilkit;breach;help;export-ranges'= {
        }
        &'veilkit;breach;help;compress-ranges'= {
        }
        &'veilkit;breach;help;merge'= {
        }
        &'veilkit;breach;help;diff'= {
        }
        &'veilkit;breach;help;serve'= {
        }
        &'veilkit;breach;help;okon'= {
        }
        &'veilkit;breach;help;help'= {
        }
        &'veilkit;encode'= {
            cand --scheme 'The construction: see veilkit-encode(1) and docs/IDS.md'
            cand --format 'Text form of encoded ids [default: uuid for --scheme uuid, else hex]'
            cand --context 'Per-table or per-tenant name: ids of one context do not decode in another'
            cand --prefix 'A type prefix such as `usr_` written before encoded ids, required and stripped when decoding'
            cand --rounds 'Feistel rounds of the uuid scheme [default: 3; 2 with a stored nonce]; more rounds widen the security margin, one AES call each. Decoding needs the same number'
            cand --clear-bit 'The bit cycle walking keeps clear, 0-127, in the block read as a little-endian 128-bit number [default: 63]'
            cand --field 'Transform only field N of each line (counted from 1, as cut does); the rest of the line is left as it is. A UTF-8 byte order mark before the first line (as Windows editors and spreadsheets save text) is no part of an id or field: without --field or --header it is skipped (each line is one id), with either the output starts with it as the input did'
            cand -d 'The field separator for --field: one character, or `\t` [default: tab; comma with --csv]'
            cand --delimiter 'The field separator for --field: one character, or `\t` [default: tab; comma with --csv]'
            cand --nonce-field 'With --field and a stored nonce: the field holding the nonce (read by encode, written by decode and by --random-nonce)'
            cand --key-file 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)'
            cand -q 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --quiet 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --stored-nonce 'The stored-nonce form: input lines are `ID NONCE` (decimal), and decode prints `ID NONCE`. Carries no redundancy: forged ids cannot be rejected'
            cand --csv 'Read the input as CSV (RFC 4180, as `records` reads it): field N may be quoted, and quoted fields may hold the delimiter and line ends; every other byte is passed through as it was. The field written in its place is quoted only when it must be (a value holding the delimiter, a quote, CR or LF: in double quotes, quotes doubled), whether or not the input''s field was quoted; ids, UUIDs and the numbers decoded never need it. Without --csv, lines are split at every delimiter, as `cut` does (TSV and plain delimiters)'
            cand --header 'Copy the first line (the first record with --csv) to the output unchanged: a header row'
            cand --keep-going 'Report each bad line on stderr, write an empty line in its place, go on, and exit 2 at the end (default: stop at the first bad line)'
            cand --random-nonce 'Stored-nonce form with a fresh random nonce per id; prints `ID NONCE OPAQUE` (or, with --field, writes the nonce into --nonce-field). Store the nonce'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;decode'= {
            cand --scheme 'The construction: see veilkit-encode(1) and docs/IDS.md'
            cand --format 'Text form of encoded ids [default: uuid for --scheme uuid, else hex]'
            cand --context 'Per-table or per-tenant name: ids of one context do not decode in another'
            cand --prefix 'A type prefix such as `usr_` written before encoded ids, required and stripped when decoding'
            cand --rounds 'Feistel rounds of the uuid scheme [default: 3; 2 with a stored nonce]; more rounds widen the security margin, one AES call each. Decoding needs the same number'
            cand --clear-bit 'The bit cycle walking keeps clear, 0-127, in the block read as a little-endian 128-bit number [default: 63]'
            cand --field 'Transform only field N of each line (counted from 1, as cut does); the rest of the line is left as it is. A UTF-8 byte order mark before the first line (as Windows editors and spreadsheets save text) is no part of an id or field: without --field or --header it is skipped (each line is one id), with either the output starts with it as the input did'
            cand -d 'The field separator for --field: one character, or `\t` [default: tab; comma with --csv]'
            cand --delimiter 'The field separator for --field: one character, or `\t` [default: tab; comma with --csv]'
            cand --nonce-field 'With --field and a stored nonce: the field holding the nonce (read by encode, written by decode and by --random-nonce)'
            cand --key-file 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)'
            cand --key-id 'The key that decodes stored-nonce aes128 and cycle-walk ids, which cannot name their key [default: the current key]'
            cand -q 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --quiet 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --stored-nonce 'The stored-nonce form: input lines are `ID NONCE` (decimal), and decode prints `ID NONCE`. Carries no redundancy: forged ids cannot be rejected'
            cand --csv 'Read the input as CSV (RFC 4180, as `records` reads it): field N may be quoted, and quoted fields may hold the delimiter and line ends; every other byte is passed through as it was. The field written in its place is quoted only when it must be (a value holding the delimiter, a quote, CR or LF: in double quotes, quotes doubled), whether or not the input''s field was quoted; ids, UUIDs and the numbers decoded never need it. Without --csv, lines are split at every delimiter, as `cut` does (TSV and plain delimiters)'
            cand --header 'Copy the first line (the first record with --csv) to the output unchanged: a header row'
            cand --keep-going 'Report each bad line on stderr, write an empty line in its place, go on, and exit 2 at the end (default: stop at the first bad line)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;reencode'= {
            cand --scheme 'The construction: see veilkit-encode(1) and docs/IDS.md'
            cand --format 'Text form of encoded ids [default: uuid for --scheme uuid, else hex]'
            cand --context 'Per-table or per-tenant name: ids of one context do not decode in another'
            cand --prefix 'A type prefix such as `usr_` written before encoded ids, required and stripped when decoding'
            cand --rounds 'Feistel rounds of the uuid scheme [default: 3; 2 with a stored nonce]; more rounds widen the security margin, one AES call each. Decoding needs the same number'
            cand --clear-bit 'The bit cycle walking keeps clear, 0-127, in the block read as a little-endian 128-bit number [default: 63]'
            cand --field 'Transform only field N of each line (counted from 1, as cut does); the rest of the line is left as it is. A UTF-8 byte order mark before the first line (as Windows editors and spreadsheets save text) is no part of an id or field: without --field or --header it is skipped (each line is one id), with either the output starts with it as the input did'
            cand -d 'The field separator for --field: one character, or `\t` [default: tab; comma with --csv]'
            cand --delimiter 'The field separator for --field: one character, or `\t` [default: tab; comma with --csv]'
            cand --nonce-field 'With --field and a stored nonce: the field holding the nonce (read by encode, written by decode and by --random-nonce)'
            cand --key-file 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)'
            cand --key-id 'The key that made stored-nonce aes128 and cycle-walk ids, which cannot name their key [default: the current key]'
            cand -q 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --quiet 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --stored-nonce 'The stored-nonce form: input lines are `ID NONCE` (decimal), and decode prints `ID NONCE`. Carries no redundancy: forged ids cannot be rejected'
            cand --csv 'Read the input as CSV (RFC 4180, as `records` reads it): field N may be quoted, and quoted fields may hold the delimiter and line ends; every other byte is passed through as it was. The field written in its place is quoted only when it must be (a value holding the delimiter, a quote, CR or LF: in double quotes, quotes doubled), whether or not the input''s field was quoted; ids, UUIDs and the numbers decoded never need it. Without --csv, lines are split at every delimiter, as `cut` does (TSV and plain delimiters)'
            cand --header 'Copy the first line (the first record with --csv) to the output unchanged: a header row'
            cand --keep-going 'Report each bad line on stderr, write an empty line in its place, go on, and exit 2 at the end (default: stop at the first bad line)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;ids'= {
            cand -q 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --quiet 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand sql 'Write a psql script defining encode/decode functions identical to the CLI''s'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'veilkit;ids;sql'= {
            cand --dialect 'The database'
            cand --scheme 'The construction, as for encode'
            cand --format 'Text form [default: uuid (a uuid value) for --scheme uuid, else hex]'
            cand --context 'A context (lower-case letters, digits, _): functions encode_NAME, decode_NAME, try_decode_NAME. Repeatable; without any, the default (empty) context and functions encode, decode, try_decode'
            cand --prefix 'A prefix written before ids and required when decoding (the functions then take and return text)'
            cand --rounds 'Feistel rounds of the uuid scheme [default: 3]'
            cand --clear-bit 'The bit cycle walking keeps clear [default: 63]'
            cand --schema 'The schema of the functions and of the key table'
            cand -o 'Write the script to FILE (mode 0600, atomically) instead of standard output'
            cand --output 'Write the script to FILE (mode 0600, atomically) instead of standard output'
            cand --key-file 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)'
            cand -q 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --quiet 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --rotate 'Only replace the keys (after adding a key to the ring): the functions stay'
            cand -f 'Replace FILE if it exists'
            cand --force 'Replace FILE if it exists'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;ids;help'= {
            cand sql 'Write a psql script defining encode/decode functions identical to the CLI''s'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'veilkit;ids;help;sql'= {
        }
        &'veilkit;ids;help;help'= {
        }
        &'veilkit;nonce'= {
            cand --kind 'The kind of nonce'
            cand --bits 'Bits per nonce'
            cand -n 'How many nonces'
            cand --count 'How many nonces'
            cand --machine-id 'This machine''s id, 0 to 511, or `auto`: the lowest id that no live process holds under the guard (said on stderr). Every machine of a fleet needs its own, unless they share their state in PostgreSQL'
            cand --machine-id-from 'Take the machine id from a node list: this host''s place (from 0) among the host names in FILE, one a line, the same list on every host (as NoNoncense does)'
            cand --state 'Where reservations are kept: a state file shared by the processes of this machine, or a PostgreSQL database shared by a fleet (postgres://USER@HOST:PORT/DB; the table is created on first use) [default: $XDG_STATE_HOME/veilkit/nonce-state]'
            cand --guard 'Hold a lease on the machine id in this PostgreSQL database while running: another live process with the same id, on any host, refuses to start (postgres://...)'
            cand --format 'How nonces are written'
            cand --key-file 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)'
            cand -q 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --quiet 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --decrypt 'Read encrypted nonces (in --format) from stdin and print the counter values they were made from'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;records'= {
            cand -q 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --quiet 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand seal 'Seal a record file (lines, CSV, TSV, JSON lines) into an encrypted one'
            cand open 'Print a record file''s records: the exact original bytes, after verifying them'
            cand get 'Fetch records by key or number, decrypting only the pages they need'
            cand append 'Add records to a record file in place; a record with an existing key supersedes it'
            cand delete 'Remove records from a record file in place'
            cand rekey 'Add, remove or replace a record file''s key slots, or rotate its data key'
            cand verify 'Check that every page of a record file authenticates'
            cand info 'Show a record file''s key slots and, with a key, its records and pages'
            cand encrypt-fields 'Encrypt chosen CSV/TSV columns, with keyed token columns for equality lookups'
            cand decrypt-fields 'Decrypt CSV/TSV columns made by encrypt-fields and drop their token columns'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'veilkit;records;seal'= {
            cand -o 'The record file to write: a path, or s3://BUCKET/KEY (uploaded once sealed: one PUT, or a multipart upload past 16 MiB; nothing is visible under the key until the whole file is)'
            cand --output 'The record file to write: a path, or s3://BUCKET/KEY (uploaded once sealed: one PUT, or a multipart upload past 16 MiB; nothing is visible under the key until the whole file is)'
            cand --input-format 'The input format [default: from INPUT''s extension, else lines]'
            cand -k 'The key field of CSV, TSV and JSON lines: a number from 1, or a name (a name two columns of a header row share is refused: give the number)'
            cand --key-field 'The key field of CSV, TSV and JSON lines: a number from 1, or a name (a name two columns of a header row share is refused: give the number)'
            cand --page-size 'Page size in bytes: a power of two from 512 to 1048576'
            cand --compress 'Compress each data page''s records before sealing: `zstd` (level 9) or `zstd:LEVEL` (1 to 19), or `none`. Pages then hold more records. An input of 1 MiB or more also gets a dictionary, trained on its first records and sealed in the file, that every page is compressed with: a file near the size of zstd of the whole input. The file''s size follows the compressed size (see docs/RECORDS-FORMAT.md on what that reveals)'
            cand --tag-bits 'Bits of each index tag: 16, or 32 [default: 32 for -o s3://..., else 16]. With 16 and 4 KiB pages, a lookup in a large file first reads another key''s data page (same bucket, same tag) about once in 70 (locally a few microseconds; at a URL one or two more requests); with 32, about once in 7 million, for 2 bytes more a record in the index. Seal files that will be read at a URL with 32'
            cand --key-file 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)'
            cand --passphrase-file 'Read the passphrase from the first line of PATH (`/dev/fd/N` reads an open descriptor)'
            cand --identity 'An age identity file (`age-keygen` output: AGE-SECRET-KEY-1... lines, `#` comments); opens the file''s age recipient slots. Repeatable'
            cand -r 'Add a key slot for an age X25519 recipient (age1..., as `age-keygen` prints it); repeatable. Its identity opens the file; the recipient alone cannot'
            cand --recipient 'Add a key slot for an age X25519 recipient (age1..., as `age-keygen` prints it); repeatable. Its identity opens the file; the recipient alone cannot'
            cand --recipients-file 'Add a key slot for each recipient in PATH (one per line; blank lines and `#` comments skipped, as `age -R` reads it); repeatable'
            cand --argon2-memory 'Argon2id memory of a new passphrase slot, in MiB (at most 1024)'
            cand --argon2-passes 'Argon2id passes of a new passphrase slot (at most 10)'
            cand --endpoint 'For -o s3://...: the S3-compatible store''s URL (addressed in path style), instead of AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL or AWS''s own for the region'
            cand --cacert 'For an https:// endpoint: trust the CA certificates in this PEM file too'
            cand -q 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --quiet 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --no-header 'CSV/TSV input has no header row'
            cand -f 'Replace FILE if it exists'
            cand --force 'Replace FILE if it exists'
            cand --passphrase 'Ask for a passphrase at a hidden prompt on the terminal (twice when it makes a new key slot)'
            cand --weak-ok 'Accept a new passphrase that is among the 30,000 most common passwords (refused otherwise, with its rank)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;records;open'= {
            cand -o 'Write to OUT instead of standard output'
            cand --output 'Write to OUT instead of standard output'
            cand --key-file 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)'
            cand --passphrase-file 'Read the passphrase from the first line of PATH (`/dev/fd/N` reads an open descriptor)'
            cand --identity 'An age identity file (`age-keygen` output: AGE-SECRET-KEY-1... lines, `#` comments); opens the file''s age recipient slots. Repeatable'
            cand --parallel 'For a FILE at a URL: requests in flight at most (batch gets, open, verify)'
            cand --cacert 'For an https:// FILE: trust the CA certificates in this PEM file too (a private CA''s), beside the system''s'
            cand --endpoint 'For an s3:// FILE: the S3-compatible store''s URL (addressed in path style), instead of AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL or AWS''s own for the region'
            cand --pin 'Remember in PIN the highest commit each record file has shown, and refuse a copy older than that (storage serving an old copy again). Created when missing'
            cand -q 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --quiet 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand -f 'Replace OUT if it exists'
            cand --force 'Replace OUT if it exists'
            cand --passphrase 'Ask for a passphrase at a hidden prompt on the terminal (twice when it makes a new key slot)'
            cand --weak-ok 'Accept a new passphrase that is among the 30,000 most common passwords (refused otherwise, with its rank)'
            cand --previous-commit 'For a format-1 file whose newer header copy is damaged: use the intact copy, which may hold the commit before the last (its changes would then be missing)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;records;get'= {
            cand --record 'Fetch the N-th current record (from 1); repeatable'
            cand --keys 'Read keys from PATH, one per line (`-` for standard input), as exact bytes: a UTF-8 byte order mark before the first stays part of it, with a warning'
            cand --key-file 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)'
            cand --passphrase-file 'Read the passphrase from the first line of PATH (`/dev/fd/N` reads an open descriptor)'
            cand --identity 'An age identity file (`age-keygen` output: AGE-SECRET-KEY-1... lines, `#` comments); opens the file''s age recipient slots. Repeatable'
            cand --parallel 'For a FILE at a URL: requests in flight at most (batch gets, open, verify)'
            cand --cacert 'For an https:// FILE: trust the CA certificates in this PEM file too (a private CA''s), beside the system''s'
            cand --endpoint 'For an s3:// FILE: the S3-compatible store''s URL (addressed in path style), instead of AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL or AWS''s own for the region'
            cand --pin 'Remember in PIN the highest commit each record file has shown, and refuse a copy older than that (storage serving an old copy again). Created when missing'
            cand -q 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --quiet 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --header 'Print the input''s header row first (CSV and TSV files)'
            cand --passphrase 'Ask for a passphrase at a hidden prompt on the terminal (twice when it makes a new key slot)'
            cand --weak-ok 'Accept a new passphrase that is among the 30,000 most common passwords (refused otherwise, with its rank)'
            cand --previous-commit 'For a format-1 file whose newer header copy is damaged: use the intact copy, which may hold the commit before the last (its changes would then be missing)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;records;append'= {
            cand --key-file 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)'
            cand --passphrase-file 'Read the passphrase from the first line of PATH (`/dev/fd/N` reads an open descriptor)'
            cand --identity 'An age identity file (`age-keygen` output: AGE-SECRET-KEY-1... lines, `#` comments); opens the file''s age recipient slots. Repeatable'
            cand -r 'Refused, with the reason: an age recipient cannot append (see the man page)'
            cand --recipient 'Refused, with the reason: an age recipient cannot append (see the man page)'
            cand -q 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --quiet 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --no-header 'CSV/TSV INPUT has no header row'
            cand --passphrase 'Ask for a passphrase at a hidden prompt on the terminal (twice when it makes a new key slot)'
            cand --weak-ok 'Accept a new passphrase that is among the 30,000 most common passwords (refused otherwise, with its rank)'
            cand --previous-commit 'For a format-1 file whose newer header copy is damaged: use the intact copy, which may hold the commit before the last (its changes would then be missing)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;records;delete'= {
            cand --keys 'Read keys from PATH, one per line (`-` for standard input), as exact bytes: a UTF-8 byte order mark before the first stays part of it, with a warning'
            cand --key-file 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)'
            cand --passphrase-file 'Read the passphrase from the first line of PATH (`/dev/fd/N` reads an open descriptor)'
            cand --identity 'An age identity file (`age-keygen` output: AGE-SECRET-KEY-1... lines, `#` comments); opens the file''s age recipient slots. Repeatable'
            cand -q 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --quiet 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --passphrase 'Ask for a passphrase at a hidden prompt on the terminal (twice when it makes a new key slot)'
            cand --weak-ok 'Accept a new passphrase that is among the 30,000 most common passwords (refused otherwise, with its rank)'
            cand --previous-commit 'For a format-1 file whose newer header copy is damaged: use the intact copy, which may hold the commit before the last (its changes would then be missing)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;records;rekey'= {
            cand --add-key-file 'Add a slot for the current key of this key file'
            cand --add-passphrase-file 'Add a slot for the passphrase on the first line of PATH'
            cand --remove-key 'Remove the slot of a keyring key, named by its fingerprint (16 hex digits, as `records info` and `veilkit keys` show it) or by its id when only one slot has that id; repeatable'
            cand --remove-recipient 'Remove the slot of an age recipient (age1..., as `records info` shows it); repeatable'
            cand -r 'Add a key slot for an age X25519 recipient (age1..., as `age-keygen` prints it); repeatable. Its identity opens the file; the recipient alone cannot'
            cand --recipient 'Add a key slot for an age X25519 recipient (age1..., as `age-keygen` prints it); repeatable. Its identity opens the file; the recipient alone cannot'
            cand --recipients-file 'Add a key slot for each recipient in PATH (one per line; blank lines and `#` comments skipped, as `age -R` reads it); repeatable'
            cand --key-file 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)'
            cand --passphrase-file 'Read the passphrase from the first line of PATH (`/dev/fd/N` reads an open descriptor)'
            cand --identity 'An age identity file (`age-keygen` output: AGE-SECRET-KEY-1... lines, `#` comments); opens the file''s age recipient slots. Repeatable'
            cand --argon2-memory 'Argon2id memory of a new passphrase slot, in MiB (at most 1024)'
            cand --argon2-passes 'Argon2id passes of a new passphrase slot (at most 10)'
            cand -q 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --quiet 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --add-passphrase 'Add a slot for a new passphrase, asked twice at a hidden prompt'
            cand --remove-passphrase 'Remove every passphrase slot'
            cand --rotate-data-key 'Rewrite the file under a new data key'
            cand --passphrase 'Ask for a passphrase at a hidden prompt on the terminal (twice when it makes a new key slot)'
            cand --weak-ok 'Accept a new passphrase that is among the 30,000 most common passwords (refused otherwise, with its rank)'
            cand --previous-commit 'For a format-1 file whose newer header copy is damaged: use the intact copy, which may hold the commit before the last (its changes would then be missing)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;records;verify'= {
            cand --key-file 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)'
            cand --passphrase-file 'Read the passphrase from the first line of PATH (`/dev/fd/N` reads an open descriptor)'
            cand --identity 'An age identity file (`age-keygen` output: AGE-SECRET-KEY-1... lines, `#` comments); opens the file''s age recipient slots. Repeatable'
            cand --parallel 'For a FILE at a URL: requests in flight at most (batch gets, open, verify)'
            cand --cacert 'For an https:// FILE: trust the CA certificates in this PEM file too (a private CA''s), beside the system''s'
            cand --endpoint 'For an s3:// FILE: the S3-compatible store''s URL (addressed in path style), instead of AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL or AWS''s own for the region'
            cand --pin 'Remember in PIN the highest commit each record file has shown, and refuse a copy older than that (storage serving an old copy again). Created when missing'
            cand -q 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --quiet 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --passphrase 'Ask for a passphrase at a hidden prompt on the terminal (twice when it makes a new key slot)'
            cand --weak-ok 'Accept a new passphrase that is among the 30,000 most common passwords (refused otherwise, with its rank)'
            cand --previous-commit 'For a format-1 file whose newer header copy is damaged: use the intact copy, which may hold the commit before the last (its changes would then be missing)'
            cand --json 'Print the result as one JSON object on standard output (schema: docs/JSON.md); a problem is still named on standard error, with status 2'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;records;info'= {
            cand --key-file 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)'
            cand --passphrase-file 'Read the passphrase from the first line of PATH (`/dev/fd/N` reads an open descriptor)'
            cand --identity 'An age identity file (`age-keygen` output: AGE-SECRET-KEY-1... lines, `#` comments); opens the file''s age recipient slots. Repeatable'
            cand --parallel 'For a FILE at a URL: requests in flight at most (batch gets, open, verify)'
            cand --cacert 'For an https:// FILE: trust the CA certificates in this PEM file too (a private CA''s), beside the system''s'
            cand --endpoint 'For an s3:// FILE: the S3-compatible store''s URL (addressed in path style), instead of AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL or AWS''s own for the region'
            cand --pin 'Remember in PIN the highest commit each record file has shown, and refuse a copy older than that (storage serving an old copy again). Created when missing'
            cand -q 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --quiet 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --passphrase 'Ask for a passphrase at a hidden prompt on the terminal (twice when it makes a new key slot)'
            cand --weak-ok 'Accept a new passphrase that is among the 30,000 most common passwords (refused otherwise, with its rank)'
            cand --previous-commit 'For a format-1 file whose newer header copy is damaged: use the intact copy, which may hold the commit before the last (its changes would then be missing)'
            cand --json 'Print one JSON object instead of `key: value` lines (schema: docs/JSON.md)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;records;encrypt-fields'= {
            cand -o 'Write to OUT instead of standard output'
            cand --output 'Write to OUT instead of standard output'
            cand --fields 'Columns to encrypt or decrypt: names from the header row, or numbers from 1, separated by commas'
            cand --token-fields 'Columns with a NAME_token column after them (encrypt-fields adds them; decrypt-fields needs them only for input without a header row, where a token column cannot be told by its name)'
            cand --bind 'Bind each encrypted value to these columns of its row (names or numbers, such as the row''s primary key): it then decrypts only in a row with the same values in them, so a value moved to another row fails. decrypt-fields needs the same --bind, and then refuses values made without it'
            cand --input-format 'The input format [default: tsv for .tsv files, else csv]'
            cand --context 'A context (a table or tenant name) that separates the keys of different uses'
            cand --key-file 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)'
            cand -q 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --quiet 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --no-header 'The input has no header row (columns are then numbers)'
            cand -f 'Replace OUT if it exists'
            cand --force 'Replace OUT if it exists'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;records;decrypt-fields'= {
            cand -o 'Write to OUT instead of standard output'
            cand --output 'Write to OUT instead of standard output'
            cand --fields 'Columns to encrypt or decrypt: names from the header row, or numbers from 1, separated by commas'
            cand --token-fields 'Columns with a NAME_token column after them (encrypt-fields adds them; decrypt-fields needs them only for input without a header row, where a token column cannot be told by its name)'
            cand --bind 'Bind each encrypted value to these columns of its row (names or numbers, such as the row''s primary key): it then decrypts only in a row with the same values in them, so a value moved to another row fails. decrypt-fields needs the same --bind, and then refuses values made without it'
            cand --input-format 'The input format [default: tsv for .tsv files, else csv]'
            cand --context 'A context (a table or tenant name) that separates the keys of different uses'
            cand --key-file 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)'
            cand -q 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --quiet 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --no-header 'The input has no header row (columns are then numbers)'
            cand -f 'Replace OUT if it exists'
            cand --force 'Replace OUT if it exists'
            cand --keep-tokens 'Keep the token columns (NAME_token) instead of dropping them; --fields, --bind and --token-fields still number the columns without them, as encrypt-fields did'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;records;help'= {
            cand seal 'Seal a record file (lines, CSV, TSV, JSON lines) into an encrypted one'
            cand open 'Print a record file''s records: the exact original bytes, after verifying them'
            cand get 'Fetch records by key or number, decrypting only the pages they need'
            cand append 'Add records to a record file in place; a record with an existing key supersedes it'
            cand delete 'Remove records from a record file in place'
            cand rekey 'Add, remove or replace a record file''s key slots, or rotate its data key'
            cand verify 'Check that every page of a record file authenticates'
            cand info 'Show a record file''s key slots and, with a key, its records and pages'
            cand encrypt-fields 'Encrypt chosen CSV/TSV columns, with keyed token columns for equality lookups'
            cand decrypt-fields 'Decrypt CSV/TSV columns made by encrypt-fields and drop their token columns'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'veilkit;records;help;seal'= {
        }
        &'veilkit;records;help;open'= {
        }
        &'veilkit;records;help;get'= {
        }
        &'veilkit;records;help;append'= {
        }
        &'veilkit;records;help;delete'= {
        }
        &'veilkit;records;help;rekey'= {
        }
        &'veilkit;records;help;verify'= {
        }
        &'veilkit;records;help;info'= {
        }
        &'veilkit;records;help;encrypt-fields'= {
        }
        &'veilkit;records;help;decrypt-fields'= {
        }
        &'veilkit;records;help;help'= {
        }
        &'veilkit;bench'= {
            cand -j 'Thread counts for the nonce table, comma-separated; `max` is every core'
            cand --threads 'Thread counts for the nonce table, comma-separated; `max` is every core'
            cand --index 'Measure this breach index instead of a generated one'
            cand -q 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --quiet 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --quick 'Small workloads: everything within 10 seconds'
            cand --full 'The published workload sizes (minutes)'
            cand --json 'Print JSON (schema in docs/BENCH.md) instead of tables'
            cand --tiny 'A handful of iterations (tests of the output''s shape; figures mean nothing)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;completions'= {
            cand -q 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --quiet 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;man'= {
            cand -q 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --quiet 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
            cand --force 'Replace pages that are already there'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;help'= {
            cand keygen 'Generate a master key, or add a new current key to a keyring'
            cand keys 'Show the ids and fingerprints of a keyring (never the keys)'
            cand breach 'Build a Pwned Passwords index once, then check hashes and passwords in microseconds'
            cand encode 'Turn database ids into opaque ids (AES-128, UUIDv8 by default)'
            cand decode 'Turn opaque ids back into database ids, rejecting forged ones'
            cand reencode 'Rewrite opaque ids made with older keys under the current key'
            cand ids 'Ids inside a database: SQL functions identical to encode and decode'
            cand nonce 'Make unique counter, sortable or encrypted nonces of 64, 96 or 128 bits'
            cand records 'Encrypt record files at rest and still fetch one record by key in microseconds'
            cand bench 'Measure ids, nonces, codecs, breach lookups and record files on this machine'
            cand completions 'Print the completion script for a shell'
            cand man 'Print the manual page, or write every page into a directory'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'veilkit;help;keygen'= {
        }
        &'veilkit;help;keys'= {
        }
        &'veilkit;help;breach'= {
        }
        &'veilkit;help;encode'= {
        }
        &'veilkit;help;decode'= {
        }
        &'veilkit;help;reencode'= {
        }
        &'veilkit;help;ids'= {
        }
        &'veilkit;help;nonce'= {
        }
        &'veilkit;help;records'= {
        }
        &'veilkit;help;bench'= {
        }
        &'veilkit;help;completions'= {
        }
        &'veilkit;help;man'= {
        }
        &'veilkit;help;help'= {
        }
    ]
    $completions[$command]
}
