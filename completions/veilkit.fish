# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_veilkit_global_optspecs
    string join \n q/quiet h/help V/version
end

function __fish_veilkit_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_veilkit_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_veilkit_using_subcommand
    set -l cmd (__fish_veilkit_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c veilkit -n "__fish_veilkit_needs_command" -s q -l quiet -d 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
complete -c veilkit -n "__fish_veilkit_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_needs_command" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_needs_command" -f -a "keygen" -d 'Generate a master key, or add a new current key to a keyring'
complete -c veilkit -n "__fish_veilkit_needs_command" -f -a "keys" -d 'Show the ids and fingerprints of a keyring (never the keys)'
complete -c veilkit -n "__fish_veilkit_needs_command" -f -a "breach" -d 'Build a Pwned Passwords index once, then check hashes and passwords in microseconds'
complete -c veilkit -n "__fish_veilkit_needs_command" -f -a "encode" -d 'Turn database ids into opaque ids (AES-128, UUIDv8 by default)'
complete -c veilkit -n "__fish_veilkit_needs_command" -f -a "decode" -d 'Turn opaque ids back into database ids, rejecting forged ones'
complete -c veilkit -n "__fish_veilkit_needs_command" -f -a "reencode" -d 'Rewrite opaque ids made with older keys under the current key'
complete -c veilkit -n "__fish_veilkit_needs_command" -f -a "ids" -d 'Ids inside a database: SQL functions identical to encode and decode'
complete -c veilkit -n "__fish_veilkit_needs_command" -f -a "nonce" -d 'Make unique counter, sortable or encrypted nonces of 64, 96 or 128 bits'
complete -c veilkit -n "__fish_veilkit_needs_command" -f -a "records" -d 'Encrypt record files at rest and still fetch one record by key in microseconds'
complete -c veilkit -n "__fish_veilkit_needs_command" -f -a "bench" -d 'Measure ids, nonces, codecs, breach lookups and record files on this machine'
complete -c veilkit -n "__fish_veilkit_needs_command" -f -a "completions" -d 'Print the completion script for a shell'
complete -c veilkit -n "__fish_veilkit_needs_command" -f -a "man" -d 'Print the manual page, or write every page into a directory'
complete -c veilkit -n "__fish_veilkit_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c veilkit -n "__fish_veilkit_using_subcommand keygen" -s o -l output -d 'Write the key to FILE (created 0600, atomically) instead of standard output' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand keygen" -l add -d 'Append a new key to the keyring FILE; it becomes the current key' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand keygen" -s q -l quiet -d 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
complete -c veilkit -n "__fish_veilkit_using_subcommand keygen" -s f -l force -d 'Replace FILE if it exists'
complete -c veilkit -n "__fish_veilkit_using_subcommand keygen" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand keygen" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand keys" -l key-file -d 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand keys" -s q -l quiet -d 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
complete -c veilkit -n "__fish_veilkit_using_subcommand keys" -l json -d 'Print a JSON array of the keys instead of the table (schema: docs/JSON.md)'
complete -c veilkit -n "__fish_veilkit_using_subcommand keys" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand keys" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and not __fish_seen_subcommand_from build download update query check info verify export-ranges compress-ranges merge diff serve okon help" -s q -l quiet -d 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and not __fish_seen_subcommand_from build download update query check info verify export-ranges compress-ranges merge diff serve okon help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and not __fish_seen_subcommand_from build download update query check info verify export-ranges compress-ranges merge diff serve okon help" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and not __fish_seen_subcommand_from build download update query check info verify export-ranges compress-ranges merge diff serve okon help" -f -a "build" -d 'Build a dump (file, stdin or per-prefix directory) into an index'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and not __fish_seen_subcommand_from build download update query check info verify export-ranges compress-ranges merge diff serve okon help" -f -a "download" -d 'Download every range of the Pwned Passwords API straight into an index'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and not __fish_seen_subcommand_from build download update query check info verify export-ranges compress-ranges merge diff serve okon help" -f -a "update" -d 'Refresh an index from the range API, fetching only the ranges that changed'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and not __fish_seen_subcommand_from build download update query check info verify export-ranges compress-ranges merge diff serve okon help" -f -a "query" -d 'Look up hashes (arguments or stdin) or passwords (stdin) in an index'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and not __fish_seen_subcommand_from build download update query check info verify export-ranges compress-ranges merge diff serve okon help" -f -a "check" -d 'Check passwords typed at a hidden prompt'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and not __fish_seen_subcommand_from build download update query check info verify export-ranges compress-ranges merge diff serve okon help" -f -a "info" -d 'Show an index\'s kind, size, counts and format'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and not __fish_seen_subcommand_from build download update query check info verify export-ranges compress-ranges merge diff serve okon help" -f -a "verify" -d 'Check an index end to end: structure and every checksum'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and not __fish_seen_subcommand_from build download update query check info verify export-ranges compress-ranges merge diff serve okon help" -f -a "export-ranges" -d 'Write an index as the 1,048,576 range files the HIBP range API serves'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and not __fish_seen_subcommand_from build download update query check info verify export-ranges compress-ranges merge diff serve okon help" -f -a "compress-ranges" -d 'Compress every range body of an index ahead, for serve\'s Zstandard answers'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and not __fish_seen_subcommand_from build download update query check info verify export-ranges compress-ranges merge diff serve okon help" -f -a "merge" -d 'Replace the prefixes of an index that a directory of range files holds'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and not __fish_seen_subcommand_from build download update query check info verify export-ranges compress-ranges merge diff serve okon help" -f -a "diff" -d 'List the hashes added, removed and re-counted between two indexes'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and not __fish_seen_subcommand_from build download update query check info verify export-ranges compress-ranges merge diff serve okon help" -f -a "serve" -d 'Serve the HIBP range API (and /check) from indexes on a local port'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and not __fish_seen_subcommand_from build download update query check info verify export-ranges compress-ranges merge diff serve okon help" -f -a "okon" -d 'Answer as okon-cli does (for keepassxc-cli analyze --okon)'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and not __fish_seen_subcommand_from build download update query check info verify export-ranges compress-ranges merge diff serve okon help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from build" -s o -l output -d 'The index to write' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from build" -l kind -d 'The hash kind [default: detected from the first line]' -r -f -a "sha1\t'SHA-1 hashes (40 hex digits)'
ntlm\t'NTLM hashes (32 hex digits)'"
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from build" -l tier -d 'How much the index keeps' -r -f -a "exact\t'Every hash and its exact count'
compact\t'Truncated keys with exact counts (7 bytes per hash)'
filter\t'Binary fuse filter, 16-bit fingerprints (2.25 bytes per hash, no counts)'
filter-small\t'Binary fuse filter, 8-bit fingerprints (1.13 bytes per hash, no counts)'"
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from build" -s j -l threads -d 'Threads building filter shards [default: the number of processors]' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from build" -s q -l quiet -d 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from build" -l allow-partial -d 'Build from a per-prefix directory that lacks range files (an interrupted download): the index is marked partial, and `info` and `query` say so'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from build" -s f -l force -d 'Replace INDEX if it exists'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from build" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from build" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from download" -s o -l output -d 'The index to write' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from download" -l kind -d 'The hash kind' -r -f -a "sha1\t'SHA-1 hashes (40 hex digits)'
ntlm\t'NTLM hashes (32 hex digits)'"
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from download" -l tier -d 'How much the index keeps (as for `build`)' -r -f -a "exact\t'Every hash and its exact count'
compact\t'Truncated keys with exact counts (7 bytes per hash)'
filter\t'Binary fuse filter, 16-bit fingerprints (2.25 bytes per hash, no counts)'
filter-small\t'Binary fuse filter, 8-bit fingerprints (1.13 bytes per hash, no counts)'"
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from download" -l source -d 'A mirror: a URL with `{prefix}`, or the base of a range API' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from download" -l parallel -d 'Requests in flight at once' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from download" -l retries -d 'Attempts after the first for each range' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from download" -l timeout -d 'Seconds one request may take, body included' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from download" -l cacert -d 'Extra trusted certificates (PEM file), beside the system\'s' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from download" -l accept-encoding -d 'Content codings to ask for, most wanted first: zstd, gzip, br, identity. Brotli saves about a twentieth of gzip\'s bytes and takes twice its CPU to decode' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from download" -l checkpoint-every -d 'Ranges between two checkpoints of the index being written: at most this many are kept in the journal (fewer: a smaller journal, more syncs)' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from download" -s j -l threads -d 'Threads building filter shards [default: the number of processors]' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from download" -s q -l quiet -d 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from download" -s f -l force -d 'Replace INDEX if it exists'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from download" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from download" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from update" -s o -l output -d 'Write the new index here instead of replacing INDEX' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from update" -l source -d 'A mirror: a URL with `{prefix}`, or the base of a range API' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from update" -l parallel -d 'Requests in flight at once' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from update" -l retries -d 'Attempts after the first for each range' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from update" -l timeout -d 'Seconds one request may take, body included' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from update" -l cacert -d 'Extra trusted certificates (PEM file), beside the system\'s' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from update" -l accept-encoding -d 'Content codings to ask for, most wanted first: zstd, gzip, br, identity. Brotli saves about a twentieth of gzip\'s bytes and takes twice its CPU to decode' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from update" -l checkpoint-every -d 'Ranges between two checkpoints of the index being written: at most this many are kept in the journal (fewer: a smaller journal, more syncs)' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from update" -s q -l quiet -d 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from update" -l json -d 'Print the summary as one JSON object on standard output'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from update" -s f -l force -d 'Replace NEW if it exists'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from update" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from update" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from query" -s i -l index -d 'The index [default: none; only --passwords works without one]' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from query" -l filter -d 'A filter built from INDEX (`breach build --tier filter INDEX`), read into memory: hashes it rules out are answered without touching INDEX' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from query" -s q -l quiet -d 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from query" -l passwords -d 'Read passwords from standard input instead of hashes'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from query" -s 0 -l null -d 'Lines on standard input end with NUL, not newline (a password may hold any other byte)'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from query" -l keep-going -d 'Go on past a bad line: it is reported on stderr with its number and answered `?`, so output lines stay aligned with input lines; the status is 2 at the end'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from query" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from query" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from check" -s i -l index -d 'The index [default: the embedded list of common passwords]' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from check" -l filter -d 'A filter built from INDEX, read into memory: passwords it rules out are answered without touching INDEX' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from check" -s q -l quiet -d 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from check" -s 0 -l null -d 'Lines on standard input (not a terminal) end with NUL, not newline'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from check" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from info" -s q -l quiet -d 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from info" -l json -d 'Print one JSON object instead of `key: value` lines (schema: docs/JSON.md)'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from info" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from info" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from verify" -s q -l quiet -d 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from verify" -l json -d 'Print the result as one JSON object on standard output (schema: docs/JSON.md); a problem is still named on standard error, with status 2'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from verify" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from verify" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from export-ranges" -s i -l index -d 'The index' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from export-ranges" -s o -l output -d 'The directory to create' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from export-ranges" -s q -l quiet -d 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from export-ranges" -l skip-empty -d 'Write files only for prefixes that hold hashes'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from export-ranges" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from export-ranges" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from compress-ranges" -s i -l index -d 'The exact index' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from compress-ranges" -s o -l output -d 'The file to write' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from compress-ranges" -l level -d 'Zstandard\'s level, 1 to 22' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from compress-ranges" -s j -l threads -d 'Threads [default: the number of processors]' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from compress-ranges" -s q -l quiet -d 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from compress-ranges" -s f -l force -d 'Replace FILE if it exists'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from compress-ranges" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from compress-ranges" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from merge" -s o -l output -d 'The new index' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from merge" -s q -l quiet -d 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from merge" -s f -l force -d 'Replace NEW_INDEX if it exists'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from merge" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from merge" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from diff" -s q -l quiet -d 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from diff" -l json -d 'JSON Lines instead: one object per changed hash ({"type":"added"|"removed"| "recounted", "hash", "count" or "old_count" and "new_count"}), then one {"type":"summary"} (schema: docs/JSON.md)'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from diff" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from diff" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from serve" -s i -l index -d 'An index to serve (give -i twice for a SHA-1 and an NTLM index)' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from serve" -l listen -d 'The address or host name and port to listen on (`localhost:8000`, `[::1]:8000`; port 0: any free port). The first line on stderr is `veilkit: listening on http://ADDR:PORT`, with --quiet or without it' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from serve" -s j -l threads -d 'Worker threads [default: the number of processors]' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from serve" -l max-connections -d 'Connections served at once' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from serve" -l tls-cert -d 'Serve HTTPS with this certificate chain (PEM, the server\'s certificate first), as openssl, mkcert or certbot write it; needs --tls-key' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from serve" -l tls-key -d 'The private key of --tls-cert (PEM: PKCS#8, PKCS#1 RSA or SEC1 EC)' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from serve" -l zstd-bodies -d 'Range bodies compressed ahead by `breach compress-ranges` from one of the indexes (give it once per index): sent as they are to clients that ask for Zstandard, instead of compressing each answer. Refused unless made from that very index' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from serve" -s q -l quiet -d 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from serve" -l in-memory -d 'Read the indexes into memory (huge pages where the system allows) instead of mapping them: single lookups (/check) about 1.6x faster at 100M hashes, for the memory of the files; ranges are bound by formatting and HTTP, not memory. A reload (SIGHUP) reads the new files while the old ones are served, so it needs their memory again meanwhile: a file larger than the memory available is refused, at the start and on a reload (which then keeps serving the old ones)'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from serve" -l no-verify -d 'Start without verifying the indexes first (every checksum, about 1 s per GB): lookups still check the tables they read, but a damaged record would go unnoticed'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from serve" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from serve" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from okon" -l path -d 'The SHA-1 index (any tier; any file name)' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from okon" -l hash -d 'The SHA-1 hash, 40 hex digits in either case' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from okon" -s q -l quiet -d 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from okon" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from okon" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from help" -f -a "build" -d 'Build a dump (file, stdin or per-prefix directory) into an index'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from help" -f -a "download" -d 'Download every range of the Pwned Passwords API straight into an index'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from help" -f -a "update" -d 'Refresh an index from the range API, fetching only the ranges that changed'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from help" -f -a "query" -d 'Look up hashes (arguments or stdin) or passwords (stdin) in an index'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from help" -f -a "check" -d 'Check passwords typed at a hidden prompt'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from help" -f -a "info" -d 'Show an index\'s kind, size, counts and format'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from help" -f -a "verify" -d 'Check an index end to end: structure and every checksum'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from help" -f -a "export-ranges" -d 'Write an index as the 1,048,576 range files the HIBP range API serves'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from help" -f -a "compress-ranges" -d 'Compress every range body of an index ahead, for serve\'s Zstandard answers'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from help" -f -a "merge" -d 'Replace the prefixes of an index that a directory of range files holds'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from help" -f -a "diff" -d 'List the hashes added, removed and re-counted between two indexes'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from help" -f -a "serve" -d 'Serve the HIBP range API (and /check) from indexes on a local port'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from help" -f -a "okon" -d 'Answer as okon-cli does (for keepassxc-cli analyze --okon)'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c veilkit -n "__fish_veilkit_using_subcommand encode" -l scheme -d 'The construction: see veilkit-encode(1) and docs/IDS.md' -r -f -a "uuid\t'Feistel network with AES-128 rounds, output a version-8 UUID (ids < 2^60)'
aes128\t'One AES-128 block over the 64-bit id, output 128 opaque bits'
cycle-walk\t'As aes128, re-encrypting until the --clear-bit bit is clear'"
complete -c veilkit -n "__fish_veilkit_using_subcommand encode" -l format -d 'Text form of encoded ids [default: uuid for --scheme uuid, else hex]' -r -f -a "uuid\t'8-4-4-4-12 hex (uuid scheme only)'
hex\t'32 hex digits'
base32\t'26 characters of Crockford base32, lower case'
base62\t'22 characters of 0-9A-Za-z'"
complete -c veilkit -n "__fish_veilkit_using_subcommand encode" -l context -d 'Per-table or per-tenant name: ids of one context do not decode in another' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand encode" -l prefix -d 'A type prefix such as `usr_` written before encoded ids, required and stripped when decoding' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand encode" -l rounds -d 'Feistel rounds of the uuid scheme [default: 3; 2 with a stored nonce]; more rounds widen the security margin, one AES call each. Decoding needs the same number' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand encode" -l clear-bit -d 'The bit cycle walking keeps clear, 0-127, in the block read as a little-endian 128-bit number [default: 63]' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand encode" -l field -d 'Transform only field N of each line (counted from 1, as cut does); the rest of the line is left as it is. A UTF-8 byte order mark before the first line (as Windows editors and spreadsheets save text) is no part of an id or field: without --field or --header it is skipped (each line is one id), with either the output starts with it as the input did' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand encode" -s d -l delimiter -d 'The field separator for --field: one character, or `\\t` [default: tab; comma with --csv]' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand encode" -l nonce-field -d 'With --field and a stored nonce: the field holding the nonce (read by encode, written by decode and by --random-nonce)' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand encode" -l key-file -d 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand encode" -s q -l quiet -d 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
complete -c veilkit -n "__fish_veilkit_using_subcommand encode" -l stored-nonce -d 'The stored-nonce form: input lines are `ID NONCE` (decimal), and decode prints `ID NONCE`. Carries no redundancy: forged ids cannot be rejected'
complete -c veilkit -n "__fish_veilkit_using_subcommand encode" -l csv -d 'Read the input as CSV (RFC 4180, as `records` reads it): field N may be quoted, and quoted fields may hold the delimiter and line ends; every other byte is passed through as it was. The field written in its place is quoted only when it must be (a value holding the delimiter, a quote, CR or LF: in double quotes, quotes doubled), whether or not the input\'s field was quoted; ids, UUIDs and the numbers decoded never need it. Without --csv, lines are split at every delimiter, as `cut` does (TSV and plain delimiters)'
complete -c veilkit -n "__fish_veilkit_using_subcommand encode" -l header -d 'Copy the first line (the first record with --csv) to the output unchanged: a header row'
complete -c veilkit -n "__fish_veilkit_using_subcommand encode" -l keep-going -d 'Report each bad line on stderr, write an empty line in its place, go on, and exit 2 at the end (default: stop at the first bad line)'
complete -c veilkit -n "__fish_veilkit_using_subcommand encode" -l random-nonce -d 'Stored-nonce form with a fresh random nonce per id; prints `ID NONCE OPAQUE` (or, with --field, writes the nonce into --nonce-field). Store the nonce'
complete -c veilkit -n "__fish_veilkit_using_subcommand encode" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand encode" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand decode" -l scheme -d 'The construction: see veilkit-encode(1) and docs/IDS.md' -r -f -a "uuid\t'Feistel network with AES-128 rounds, output a version-8 UUID (ids < 2^60)'
aes128\t'One AES-128 block over the 64-bit id, output 128 opaque bits'
cycle-walk\t'As aes128, re-encrypting until the --clear-bit bit is clear'"
complete -c veilkit -n "__fish_veilkit_using_subcommand decode" -l format -d 'Text form of encoded ids [default: uuid for --scheme uuid, else hex]' -r -f -a "uuid\t'8-4-4-4-12 hex (uuid scheme only)'
hex\t'32 hex digits'
base32\t'26 characters of Crockford base32, lower case'
base62\t'22 characters of 0-9A-Za-z'"
complete -c veilkit -n "__fish_veilkit_using_subcommand decode" -l context -d 'Per-table or per-tenant name: ids of one context do not decode in another' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand decode" -l prefix -d 'A type prefix such as `usr_` written before encoded ids, required and stripped when decoding' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand decode" -l rounds -d 'Feistel rounds of the uuid scheme [default: 3; 2 with a stored nonce]; more rounds widen the security margin, one AES call each. Decoding needs the same number' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand decode" -l clear-bit -d 'The bit cycle walking keeps clear, 0-127, in the block read as a little-endian 128-bit number [default: 63]' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand decode" -l field -d 'Transform only field N of each line (counted from 1, as cut does); the rest of the line is left as it is. A UTF-8 byte order mark before the first line (as Windows editors and spreadsheets save text) is no part of an id or field: without --field or --header it is skipped (each line is one id), with either the output starts with it as the input did' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand decode" -s d -l delimiter -d 'The field separator for --field: one character, or `\\t` [default: tab; comma with --csv]' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand decode" -l nonce-field -d 'With --field and a stored nonce: the field holding the nonce (read by encode, written by decode and by --random-nonce)' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand decode" -l key-file -d 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand decode" -l key-id -d 'The key that decodes stored-nonce aes128 and cycle-walk ids, which cannot name their key [default: the current key]' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand decode" -s q -l quiet -d 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
complete -c veilkit -n "__fish_veilkit_using_subcommand decode" -l stored-nonce -d 'The stored-nonce form: input lines are `ID NONCE` (decimal), and decode prints `ID NONCE`. Carries no redundancy: forged ids cannot be rejected'
complete -c veilkit -n "__fish_veilkit_using_subcommand decode" -l csv -d 'Read the input as CSV (RFC 4180, as `records` reads it): field N may be quoted, and quoted fields may hold the delimiter and line ends; every other byte is passed through as it was. The field written in its place is quoted only when it must be (a value holding the delimiter, a quote, CR or LF: in double quotes, quotes doubled), whether or not the input\'s field was quoted; ids, UUIDs and the numbers decoded never need it. Without --csv, lines are split at every delimiter, as `cut` does (TSV and plain delimiters)'
complete -c veilkit -n "__fish_veilkit_using_subcommand decode" -l header -d 'Copy the first line (the first record with --csv) to the output unchanged: a header row'
complete -c veilkit -n "__fish_veilkit_using_subcommand decode" -l keep-going -d 'Report each bad line on stderr, write an empty line in its place, go on, and exit 2 at the end (default: stop at the first bad line)'
complete -c veilkit -n "__fish_veilkit_using_subcommand decode" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand decode" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand reencode" -l scheme -d 'The construction: see veilkit-encode(1) and docs/IDS.md' -r -f -a "uuid\t'Feistel network with AES-128 rounds, output a version-8 UUID (ids < 2^60)'
aes128\t'One AES-128 block over the 64-bit id, output 128 opaque bits'
cycle-walk\t'As aes128, re-encrypting until the --clear-bit bit is clear'"
complete -c veilkit -n "__fish_veilkit_using_subcommand reencode" -l format -d 'Text form of encoded ids [default: uuid for --scheme uuid, else hex]' -r -f -a "uuid\t'8-4-4-4-12 hex (uuid scheme only)'
hex\t'32 hex digits'
base32\t'26 characters of Crockford base32, lower case'
base62\t'22 characters of 0-9A-Za-z'"
complete -c veilkit -n "__fish_veilkit_using_subcommand reencode" -l context -d 'Per-table or per-tenant name: ids of one context do not decode in another' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand reencode" -l prefix -d 'A type prefix such as `usr_` written before encoded ids, required and stripped when decoding' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand reencode" -l rounds -d 'Feistel rounds of the uuid scheme [default: 3; 2 with a stored nonce]; more rounds widen the security margin, one AES call each. Decoding needs the same number' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand reencode" -l clear-bit -d 'The bit cycle walking keeps clear, 0-127, in the block read as a little-endian 128-bit number [default: 63]' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand reencode" -l field -d 'Transform only field N of each line (counted from 1, as cut does); the rest of the line is left as it is. A UTF-8 byte order mark before the first line (as Windows editors and spreadsheets save text) is no part of an id or field: without --field or --header it is skipped (each line is one id), with either the output starts with it as the input did' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand reencode" -s d -l delimiter -d 'The field separator for --field: one character, or `\\t` [default: tab; comma with --csv]' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand reencode" -l nonce-field -d 'With --field and a stored nonce: the field holding the nonce (read by encode, written by decode and by --random-nonce)' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand reencode" -l key-file -d 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand reencode" -l key-id -d 'The key that made stored-nonce aes128 and cycle-walk ids, which cannot name their key [default: the current key]' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand reencode" -s q -l quiet -d 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
complete -c veilkit -n "__fish_veilkit_using_subcommand reencode" -l stored-nonce -d 'The stored-nonce form: input lines are `ID NONCE` (decimal), and decode prints `ID NONCE`. Carries no redundancy: forged ids cannot be rejected'
complete -c veilkit -n "__fish_veilkit_using_subcommand reencode" -l csv -d 'Read the input as CSV (RFC 4180, as `records` reads it): field N may be quoted, and quoted fields may hold the delimiter and line ends; every other byte is passed through as it was. The field written in its place is quoted only when it must be (a value holding the delimiter, a quote, CR or LF: in double quotes, quotes doubled), whether or not the input\'s field was quoted; ids, UUIDs and the numbers decoded never need it. Without --csv, lines are split at every delimiter, as `cut` does (TSV and plain delimiters)'
complete -c veilkit -n "__fish_veilkit_using_subcommand reencode" -l header -d 'Copy the first line (the first record with --csv) to the output unchanged: a header row'
complete -c veilkit -n "__fish_veilkit_using_subcommand reencode" -l keep-going -d 'Report each bad line on stderr, write an empty line in its place, go on, and exit 2 at the end (default: stop at the first bad line)'
complete -c veilkit -n "__fish_veilkit_using_subcommand reencode" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand reencode" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand ids; and not __fish_seen_subcommand_from sql help" -s q -l quiet -d 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
complete -c veilkit -n "__fish_veilkit_using_subcommand ids; and not __fish_seen_subcommand_from sql help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand ids; and not __fish_seen_subcommand_from sql help" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand ids; and not __fish_seen_subcommand_from sql help" -f -a "sql" -d 'Write a psql script defining encode/decode functions identical to the CLI\'s'
complete -c veilkit -n "__fish_veilkit_using_subcommand ids; and not __fish_seen_subcommand_from sql help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c veilkit -n "__fish_veilkit_using_subcommand ids; and __fish_seen_subcommand_from sql" -l dialect -d 'The database' -r -f -a "postgresql\t'PostgreSQL 12 or later with pgcrypto'"
complete -c veilkit -n "__fish_veilkit_using_subcommand ids; and __fish_seen_subcommand_from sql" -l scheme -d 'The construction, as for encode' -r -f -a "uuid\t'Feistel network with AES-128 rounds, output a version-8 UUID (ids < 2^60)'
aes128\t'One AES-128 block over the 64-bit id, output 128 opaque bits'
cycle-walk\t'As aes128, re-encrypting until the --clear-bit bit is clear'"
complete -c veilkit -n "__fish_veilkit_using_subcommand ids; and __fish_seen_subcommand_from sql" -l format -d 'Text form [default: uuid (a uuid value) for --scheme uuid, else hex]' -r -f -a "uuid\t'8-4-4-4-12 hex (uuid scheme only)'
hex\t'32 hex digits'
base32\t'26 characters of Crockford base32, lower case'
base62\t'22 characters of 0-9A-Za-z'"
complete -c veilkit -n "__fish_veilkit_using_subcommand ids; and __fish_seen_subcommand_from sql" -l context -d 'A context (lower-case letters, digits, _): functions encode_NAME, decode_NAME, try_decode_NAME. Repeatable; without any, the default (empty) context and functions encode, decode, try_decode' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand ids; and __fish_seen_subcommand_from sql" -l prefix -d 'A prefix written before ids and required when decoding (the functions then take and return text)' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand ids; and __fish_seen_subcommand_from sql" -l rounds -d 'Feistel rounds of the uuid scheme [default: 3]' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand ids; and __fish_seen_subcommand_from sql" -l clear-bit -d 'The bit cycle walking keeps clear [default: 63]' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand ids; and __fish_seen_subcommand_from sql" -l schema -d 'The schema of the functions and of the key table' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand ids; and __fish_seen_subcommand_from sql" -s o -l output -d 'Write the script to FILE (mode 0600, atomically) instead of standard output' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand ids; and __fish_seen_subcommand_from sql" -l key-file -d 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand ids; and __fish_seen_subcommand_from sql" -s q -l quiet -d 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
complete -c veilkit -n "__fish_veilkit_using_subcommand ids; and __fish_seen_subcommand_from sql" -l rotate -d 'Only replace the keys (after adding a key to the ring): the functions stay'
complete -c veilkit -n "__fish_veilkit_using_subcommand ids; and __fish_seen_subcommand_from sql" -s f -l force -d 'Replace FILE if it exists'
complete -c veilkit -n "__fish_veilkit_using_subcommand ids; and __fish_seen_subcommand_from sql" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand ids; and __fish_seen_subcommand_from sql" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand ids; and __fish_seen_subcommand_from help" -f -a "sql" -d 'Write a psql script defining encode/decode functions identical to the CLI\'s'
complete -c veilkit -n "__fish_veilkit_using_subcommand ids; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c veilkit -n "__fish_veilkit_using_subcommand nonce" -l kind -d 'The kind of nonce' -r -f -a "counter\t'Unique and predictable'
sortable\t'Creation millisecond first: values sort by creation time'
encrypted\t'A counter through a block cipher of the width: unique and unpredictable'"
complete -c veilkit -n "__fish_veilkit_using_subcommand nonce" -l bits -d 'Bits per nonce' -r -f -a "64\t'64 bits: at most 8,192 per millisecond per machine id'
96\t'96 bits'
128\t'128 bits'"
complete -c veilkit -n "__fish_veilkit_using_subcommand nonce" -s n -l count -d 'How many nonces' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand nonce" -l machine-id -d 'This machine\'s id, 0 to 511, or `auto`: the lowest id that no live process holds under the guard (said on stderr). Every machine of a fleet needs its own, unless they share their state in PostgreSQL' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand nonce" -l machine-id-from -d 'Take the machine id from a node list: this host\'s place (from 0) among the host names in FILE, one a line, the same list on every host (as NoNoncense does)' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand nonce" -l state -d 'Where reservations are kept: a state file shared by the processes of this machine, or a PostgreSQL database shared by a fleet (postgres://USER@HOST:PORT/DB; the table is created on first use) [default: $XDG_STATE_HOME/veilkit/nonce-state]' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand nonce" -l guard -d 'Hold a lease on the machine id in this PostgreSQL database while running: another live process with the same id, on any host, refuses to start (postgres://...)' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand nonce" -l format -d 'How nonces are written' -r -f -a "hex\t'Lower-case hex, fixed width'
base64\t'RFC 4648 base64'
base32\t'Crockford base32, lower case, fixed width'
decimal\t'Decimal'
binary\t'Raw big-endian bytes, back to back'"
complete -c veilkit -n "__fish_veilkit_using_subcommand nonce" -l key-file -d 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand nonce" -s q -l quiet -d 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
complete -c veilkit -n "__fish_veilkit_using_subcommand nonce" -l decrypt -d 'Read encrypted nonces (in --format) from stdin and print the counter values they were made from'
complete -c veilkit -n "__fish_veilkit_using_subcommand nonce" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand nonce" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and not __fish_seen_subcommand_from seal open get append delete rekey verify info encrypt-fields decrypt-fields help" -s q -l quiet -d 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and not __fish_seen_subcommand_from seal open get append delete rekey verify info encrypt-fields decrypt-fields help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and not __fish_seen_subcommand_from seal open get append delete rekey verify info encrypt-fields decrypt-fields help" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and not __fish_seen_subcommand_from seal open get append delete rekey verify info encrypt-fields decrypt-fields help" -f -a "seal" -d 'Seal a record file (lines, CSV, TSV, JSON lines) into an encrypted one'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and not __fish_seen_subcommand_from seal open get append delete rekey verify info encrypt-fields decrypt-fields help" -f -a "open" -d 'Print a record file\'s records: the exact original bytes, after verifying them'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and not __fish_seen_subcommand_from seal open get append delete rekey verify info encrypt-fields decrypt-fields help" -f -a "get" -d 'Fetch records by key or number, decrypting only the pages they need'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and not __fish_seen_subcommand_from seal open get append delete rekey verify info encrypt-fields decrypt-fields help" -f -a "append" -d 'Add records to a record file in place; a record with an existing key supersedes it'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and not __fish_seen_subcommand_from seal open get append delete rekey verify info encrypt-fields decrypt-fields help" -f -a "delete" -d 'Remove records from a record file in place'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and not __fish_seen_subcommand_from seal open get append delete rekey verify info encrypt-fields decrypt-fields help" -f -a "rekey" -d 'Add, remove or replace a record file\'s key slots, or rotate its data key'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and not __fish_seen_subcommand_from seal open get append delete rekey verify info encrypt-fields decrypt-fields help" -f -a "verify" -d 'Check that every page of a record file authenticates'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and not __fish_seen_subcommand_from seal open get append delete rekey verify info encrypt-fields decrypt-fields help" -f -a "info" -d 'Show a record file\'s key slots and, with a key, its records and pages'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and not __fish_seen_subcommand_from seal open get append delete rekey verify info encrypt-fields decrypt-fields help" -f -a "encrypt-fields" -d 'Encrypt chosen CSV/TSV columns, with keyed token columns for equality lookups'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and not __fish_seen_subcommand_from seal open get append delete rekey verify info encrypt-fields decrypt-fields help" -f -a "decrypt-fields" -d 'Decrypt CSV/TSV columns made by encrypt-fields and drop their token columns'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and not __fish_seen_subcommand_from seal open get append delete rekey verify info encrypt-fields decrypt-fields help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from seal" -s o -l output -d 'The record file to write: a path, or s3://BUCKET/KEY (uploaded once sealed: one PUT, or a multipart upload past 16 MiB; nothing is visible under the key until the whole file is)' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from seal" -l input-format -d 'The input format [default: from INPUT\'s extension, else lines]' -r -f -a "lines\t'One record per line, keyed by its number from 1'
csv\t'Comma-separated values with RFC 4180 quoting'
tsv\t'Tab-separated values, no quoting'
jsonl\t'JSON lines (one object per line)'"
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from seal" -s k -l key-field -d 'The key field of CSV, TSV and JSON lines: a number from 1, or a name (a name two columns of a header row share is refused: give the number)' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from seal" -l page-size -d 'Page size in bytes: a power of two from 512 to 1048576' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from seal" -l compress -d 'Compress each data page\'s records before sealing: `zstd` (level 9) or `zstd:LEVEL` (1 to 19), or `none`. Pages then hold more records. An input of 1 MiB or more also gets a dictionary, trained on its first records and sealed in the file, that every page is compressed with: a file near the size of zstd of the whole input. The file\'s size follows the compressed size (see docs/RECORDS-FORMAT.md on what that reveals)' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from seal" -l tag-bits -d 'Bits of each index tag: 16, or 32 [default: 32 for -o s3://..., else 16]. With 16 and 4 KiB pages, a lookup in a large file first reads another key\'s data page (same bucket, same tag) about once in 70 (locally a few microseconds; at a URL one or two more requests); with 32, about once in 7 million, for 2 bytes more a record in the index. Seal files that will be read at a URL with 32' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from seal" -l key-file -d 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from seal" -l passphrase-file -d 'Read the passphrase from the first line of PATH (`/dev/fd/N` reads an open descriptor)' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from seal" -l identity -d 'An age identity file (`age-keygen` output: AGE-SECRET-KEY-1... lines, `#` comments); opens the file\'s age recipient slots. Repeatable' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from seal" -s r -l recipient -d 'Add a key slot for an age X25519 recipient (age1..., as `age-keygen` prints it); repeatable. Its identity opens the file; the recipient alone cannot' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from seal" -l recipients-file -d 'Add a key slot for each recipient in PATH (one per line; blank lines and `#` comments skipped, as `age -R` reads it); repeatable' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from seal" -l argon2-memory -d 'Argon2id memory of a new passphrase slot, in MiB (at most 1024)' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from seal" -l argon2-passes -d 'Argon2id passes of a new passphrase slot (at most 10)' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from seal" -l endpoint -d 'For -o s3://...: the S3-compatible store\'s URL (addressed in path style), instead of AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL or AWS\'s own for the region' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from seal" -l cacert -d 'For an https:// endpoint: trust the CA certificates in this PEM file too' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from seal" -s q -l quiet -d 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from seal" -l no-header -d 'CSV/TSV input has no header row'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from seal" -s f -l force -d 'Replace FILE if it exists'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from seal" -l passphrase -d 'Ask for a passphrase at a hidden prompt on the terminal (twice when it makes a new key slot)'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from seal" -l weak-ok -d 'Accept a new passphrase that is among the 30,000 most common passwords (refused otherwise, with its rank)'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from seal" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from seal" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from open" -s o -l output -d 'Write to OUT instead of standard output' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from open" -l key-file -d 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from open" -l passphrase-file -d 'Read the passphrase from the first line of PATH (`/dev/fd/N` reads an open descriptor)' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from open" -l identity -d 'An age identity file (`age-keygen` output: AGE-SECRET-KEY-1... lines, `#` comments); opens the file\'s age recipient slots. Repeatable' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from open" -l parallel -d 'For a FILE at a URL: requests in flight at most (batch gets, open, verify)' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from open" -l cacert -d 'For an https:// FILE: trust the CA certificates in this PEM file too (a private CA\'s), beside the system\'s' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from open" -l endpoint -d 'For an s3:// FILE: the S3-compatible store\'s URL (addressed in path style), instead of AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL or AWS\'s own for the region' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from open" -l pin -d 'Remember in PIN the highest commit each record file has shown, and refuse a copy older than that (storage serving an old copy again). Created when missing' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from open" -s q -l quiet -d 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from open" -s f -l force -d 'Replace OUT if it exists'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from open" -l passphrase -d 'Ask for a passphrase at a hidden prompt on the terminal (twice when it makes a new key slot)'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from open" -l weak-ok -d 'Accept a new passphrase that is among the 30,000 most common passwords (refused otherwise, with its rank)'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from open" -l previous-commit -d 'For a format-1 file whose newer header copy is damaged: use the intact copy, which may hold the commit before the last (its changes would then be missing)'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from open" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from open" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from get" -l record -d 'Fetch the N-th current record (from 1); repeatable' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from get" -l keys -d 'Read keys from PATH, one per line (`-` for standard input), as exact bytes: a UTF-8 byte order mark before the first stays part of it, with a warning' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from get" -l key-file -d 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from get" -l passphrase-file -d 'Read the passphrase from the first line of PATH (`/dev/fd/N` reads an open descriptor)' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from get" -l identity -d 'An age identity file (`age-keygen` output: AGE-SECRET-KEY-1... lines, `#` comments); opens the file\'s age recipient slots. Repeatable' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from get" -l parallel -d 'For a FILE at a URL: requests in flight at most (batch gets, open, verify)' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from get" -l cacert -d 'For an https:// FILE: trust the CA certificates in this PEM file too (a private CA\'s), beside the system\'s' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from get" -l endpoint -d 'For an s3:// FILE: the S3-compatible store\'s URL (addressed in path style), instead of AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL or AWS\'s own for the region' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from get" -l pin -d 'Remember in PIN the highest commit each record file has shown, and refuse a copy older than that (storage serving an old copy again). Created when missing' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from get" -s q -l quiet -d 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from get" -l header -d 'Print the input\'s header row first (CSV and TSV files)'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from get" -l passphrase -d 'Ask for a passphrase at a hidden prompt on the terminal (twice when it makes a new key slot)'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from get" -l weak-ok -d 'Accept a new passphrase that is among the 30,000 most common passwords (refused otherwise, with its rank)'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from get" -l previous-commit -d 'For a format-1 file whose newer header copy is damaged: use the intact copy, which may hold the commit before the last (its changes would then be missing)'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from get" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from get" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from append" -l key-file -d 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from append" -l passphrase-file -d 'Read the passphrase from the first line of PATH (`/dev/fd/N` reads an open descriptor)' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from append" -l identity -d 'An age identity file (`age-keygen` output: AGE-SECRET-KEY-1... lines, `#` comments); opens the file\'s age recipient slots. Repeatable' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from append" -s r -l recipient -d 'Refused, with the reason: an age recipient cannot append (see the man page)' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from append" -s q -l quiet -d 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from append" -l no-header -d 'CSV/TSV INPUT has no header row'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from append" -l passphrase -d 'Ask for a passphrase at a hidden prompt on the terminal (twice when it makes a new key slot)'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from append" -l weak-ok -d 'Accept a new passphrase that is among the 30,000 most common passwords (refused otherwise, with its rank)'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from append" -l previous-commit -d 'For a format-1 file whose newer header copy is damaged: use the intact copy, which may hold the commit before the last (its changes would then be missing)'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from append" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from append" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from delete" -l keys -d 'Read keys from PATH, one per line (`-` for standard input), as exact bytes: a UTF-8 byte order mark before the first stays part of it, with a warning' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from delete" -l key-file -d 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from delete" -l passphrase-file -d 'Read the passphrase from the first line of PATH (`/dev/fd/N` reads an open descriptor)' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from delete" -l identity -d 'An age identity file (`age-keygen` output: AGE-SECRET-KEY-1... lines, `#` comments); opens the file\'s age recipient slots. Repeatable' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from delete" -s q -l quiet -d 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from delete" -l passphrase -d 'Ask for a passphrase at a hidden prompt on the terminal (twice when it makes a new key slot)'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from delete" -l weak-ok -d 'Accept a new passphrase that is among the 30,000 most common passwords (refused otherwise, with its rank)'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from delete" -l previous-commit -d 'For a format-1 file whose newer header copy is damaged: use the intact copy, which may hold the commit before the last (its changes would then be missing)'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from delete" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from rekey" -l add-key-file -d 'Add a slot for the current key of this key file' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from rekey" -l add-passphrase-file -d 'Add a slot for the passphrase on the first line of PATH' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from rekey" -l remove-key -d 'Remove the slot of a keyring key, named by its fingerprint (16 hex digits, as `records info` and `veilkit keys` show it) or by its id when only one slot has that id; repeatable' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from rekey" -l remove-recipient -d 'Remove the slot of an age recipient (age1..., as `records info` shows it); repeatable' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from rekey" -s r -l recipient -d 'Add a key slot for an age X25519 recipient (age1..., as `age-keygen` prints it); repeatable. Its identity opens the file; the recipient alone cannot' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from rekey" -l recipients-file -d 'Add a key slot for each recipient in PATH (one per line; blank lines and `#` comments skipped, as `age -R` reads it); repeatable' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from rekey" -l key-file -d 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from rekey" -l passphrase-file -d 'Read the passphrase from the first line of PATH (`/dev/fd/N` reads an open descriptor)' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from rekey" -l identity -d 'An age identity file (`age-keygen` output: AGE-SECRET-KEY-1... lines, `#` comments); opens the file\'s age recipient slots. Repeatable' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from rekey" -l argon2-memory -d 'Argon2id memory of a new passphrase slot, in MiB (at most 1024)' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from rekey" -l argon2-passes -d 'Argon2id passes of a new passphrase slot (at most 10)' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from rekey" -s q -l quiet -d 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from rekey" -l add-passphrase -d 'Add a slot for a new passphrase, asked twice at a hidden prompt'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from rekey" -l remove-passphrase -d 'Remove every passphrase slot'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from rekey" -l rotate-data-key -d 'Rewrite the file under a new data key'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from rekey" -l passphrase -d 'Ask for a passphrase at a hidden prompt on the terminal (twice when it makes a new key slot)'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from rekey" -l weak-ok -d 'Accept a new passphrase that is among the 30,000 most common passwords (refused otherwise, with its rank)'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from rekey" -l previous-commit -d 'For a format-1 file whose newer header copy is damaged: use the intact copy, which may hold the commit before the last (its changes would then be missing)'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from rekey" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from rekey" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from verify" -l key-file -d 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from verify" -l passphrase-file -d 'Read the passphrase from the first line of PATH (`/dev/fd/N` reads an open descriptor)' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from verify" -l identity -d 'An age identity file (`age-keygen` output: AGE-SECRET-KEY-1... lines, `#` comments); opens the file\'s age recipient slots. Repeatable' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from verify" -l parallel -d 'For a FILE at a URL: requests in flight at most (batch gets, open, verify)' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from verify" -l cacert -d 'For an https:// FILE: trust the CA certificates in this PEM file too (a private CA\'s), beside the system\'s' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from verify" -l endpoint -d 'For an s3:// FILE: the S3-compatible store\'s URL (addressed in path style), instead of AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL or AWS\'s own for the region' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from verify" -l pin -d 'Remember in PIN the highest commit each record file has shown, and refuse a copy older than that (storage serving an old copy again). Created when missing' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from verify" -s q -l quiet -d 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from verify" -l passphrase -d 'Ask for a passphrase at a hidden prompt on the terminal (twice when it makes a new key slot)'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from verify" -l weak-ok -d 'Accept a new passphrase that is among the 30,000 most common passwords (refused otherwise, with its rank)'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from verify" -l previous-commit -d 'For a format-1 file whose newer header copy is damaged: use the intact copy, which may hold the commit before the last (its changes would then be missing)'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from verify" -l json -d 'Print the result as one JSON object on standard output (schema: docs/JSON.md); a problem is still named on standard error, with status 2'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from verify" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from verify" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from info" -l key-file -d 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from info" -l passphrase-file -d 'Read the passphrase from the first line of PATH (`/dev/fd/N` reads an open descriptor)' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from info" -l identity -d 'An age identity file (`age-keygen` output: AGE-SECRET-KEY-1... lines, `#` comments); opens the file\'s age recipient slots. Repeatable' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from info" -l parallel -d 'For a FILE at a URL: requests in flight at most (batch gets, open, verify)' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from info" -l cacert -d 'For an https:// FILE: trust the CA certificates in this PEM file too (a private CA\'s), beside the system\'s' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from info" -l endpoint -d 'For an s3:// FILE: the S3-compatible store\'s URL (addressed in path style), instead of AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL or AWS\'s own for the region' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from info" -l pin -d 'Remember in PIN the highest commit each record file has shown, and refuse a copy older than that (storage serving an old copy again). Created when missing' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from info" -s q -l quiet -d 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from info" -l passphrase -d 'Ask for a passphrase at a hidden prompt on the terminal (twice when it makes a new key slot)'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from info" -l weak-ok -d 'Accept a new passphrase that is among the 30,000 most common passwords (refused otherwise, with its rank)'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from info" -l previous-commit -d 'For a format-1 file whose newer header copy is damaged: use the intact copy, which may hold the commit before the last (its changes would then be missing)'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from info" -l json -d 'Print one JSON object instead of `key: value` lines (schema: docs/JSON.md)'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from info" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from info" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from encrypt-fields" -s o -l output -d 'Write to OUT instead of standard output' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from encrypt-fields" -l fields -d 'Columns to encrypt or decrypt: names from the header row, or numbers from 1, separated by commas' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from encrypt-fields" -l token-fields -d 'Columns with a NAME_token column after them (encrypt-fields adds them; decrypt-fields needs them only for input without a header row, where a token column cannot be told by its name)' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from encrypt-fields" -l bind -d 'Bind each encrypted value to these columns of its row (names or numbers, such as the row\'s primary key): it then decrypts only in a row with the same values in them, so a value moved to another row fails. decrypt-fields needs the same --bind, and then refuses values made without it' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from encrypt-fields" -l input-format -d 'The input format [default: tsv for .tsv files, else csv]' -r -f -a "csv\t'Comma-separated values with RFC 4180 quoting'
tsv\t'Tab-separated values, no quoting'"
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from encrypt-fields" -l context -d 'A context (a table or tenant name) that separates the keys of different uses' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from encrypt-fields" -l key-file -d 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from encrypt-fields" -s q -l quiet -d 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from encrypt-fields" -l no-header -d 'The input has no header row (columns are then numbers)'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from encrypt-fields" -s f -l force -d 'Replace OUT if it exists'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from encrypt-fields" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from encrypt-fields" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from decrypt-fields" -s o -l output -d 'Write to OUT instead of standard output' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from decrypt-fields" -l fields -d 'Columns to encrypt or decrypt: names from the header row, or numbers from 1, separated by commas' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from decrypt-fields" -l token-fields -d 'Columns with a NAME_token column after them (encrypt-fields adds them; decrypt-fields needs them only for input without a header row, where a token column cannot be told by its name)' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from decrypt-fields" -l bind -d 'Bind each encrypted value to these columns of its row (names or numbers, such as the row\'s primary key): it then decrypts only in a row with the same values in them, so a value moved to another row fails. decrypt-fields needs the same --bind, and then refuses values made without it' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from decrypt-fields" -l input-format -d 'The input format [default: tsv for .tsv files, else csv]' -r -f -a "csv\t'Comma-separated values with RFC 4180 quoting'
tsv\t'Tab-separated values, no quoting'"
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from decrypt-fields" -l context -d 'A context (a table or tenant name) that separates the keys of different uses' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from decrypt-fields" -l key-file -d 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from decrypt-fields" -s q -l quiet -d 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from decrypt-fields" -l no-header -d 'The input has no header row (columns are then numbers)'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from decrypt-fields" -s f -l force -d 'Replace OUT if it exists'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from decrypt-fields" -l keep-tokens -d 'Keep the token columns (NAME_token) instead of dropping them; --fields, --bind and --token-fields still number the columns without them, as encrypt-fields did'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from decrypt-fields" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from decrypt-fields" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from help" -f -a "seal" -d 'Seal a record file (lines, CSV, TSV, JSON lines) into an encrypted one'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from help" -f -a "open" -d 'Print a record file\'s records: the exact original bytes, after verifying them'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from help" -f -a "get" -d 'Fetch records by key or number, decrypting only the pages they need'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from help" -f -a "append" -d 'Add records to a record file in place; a record with an existing key supersedes it'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Remove records from a record file in place'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from help" -f -a "rekey" -d 'Add, remove or replace a record file\'s key slots, or rotate its data key'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from help" -f -a "verify" -d 'Check that every page of a record file authenticates'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from help" -f -a "info" -d 'Show a record file\'s key slots and, with a key, its records and pages'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from help" -f -a "encrypt-fields" -d 'Encrypt chosen CSV/TSV columns, with keyed token columns for equality lookups'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from help" -f -a "decrypt-fields" -d 'Decrypt CSV/TSV columns made by encrypt-fields and drop their token columns'
complete -c veilkit -n "__fish_veilkit_using_subcommand records; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c veilkit -n "__fish_veilkit_using_subcommand bench" -s j -l threads -d 'Thread counts for the nonce table, comma-separated; `max` is every core' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand bench" -l index -d 'Measure this breach index instead of a generated one' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand bench" -s q -l quiet -d 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
complete -c veilkit -n "__fish_veilkit_using_subcommand bench" -l quick -d 'Small workloads: everything within 10 seconds'
complete -c veilkit -n "__fish_veilkit_using_subcommand bench" -l full -d 'The published workload sizes (minutes)'
complete -c veilkit -n "__fish_veilkit_using_subcommand bench" -l json -d 'Print JSON (schema in docs/BENCH.md) instead of tables'
complete -c veilkit -n "__fish_veilkit_using_subcommand bench" -l tiny -d 'A handful of iterations (tests of the output\'s shape; figures mean nothing)'
complete -c veilkit -n "__fish_veilkit_using_subcommand bench" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand bench" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand completions" -s q -l quiet -d 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
complete -c veilkit -n "__fish_veilkit_using_subcommand completions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand completions" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand man" -s q -l quiet -d 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q'
complete -c veilkit -n "__fish_veilkit_using_subcommand man" -l force -d 'Replace pages that are already there'
complete -c veilkit -n "__fish_veilkit_using_subcommand man" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand man" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand help; and not __fish_seen_subcommand_from keygen keys breach encode decode reencode ids nonce records bench completions man help" -f -a "keygen" -d 'Generate a master key, or add a new current key to a keyring'
complete -c veilkit -n "__fish_veilkit_using_subcommand help; and not __fish_seen_subcommand_from keygen keys breach encode decode reencode ids nonce records bench completions man help" -f -a "keys" -d 'Show the ids and fingerprints of a keyring (never the keys)'
complete -c veilkit -n "__fish_veilkit_using_subcommand help; and not __fish_seen_subcommand_from keygen keys breach encode decode reencode ids nonce records bench completions man help" -f -a "breach" -d 'Build a Pwned Passwords index once, then check hashes and passwords in microseconds'
complete -c veilkit -n "__fish_veilkit_using_subcommand help; and not __fish_seen_subcommand_from keygen keys breach encode decode reencode ids nonce records bench completions man help" -f -a "encode" -d 'Turn database ids into opaque ids (AES-128, UUIDv8 by default)'
complete -c veilkit -n "__fish_veilkit_using_subcommand help; and not __fish_seen_subcommand_from keygen keys breach encode decode reencode ids nonce records bench completions man help" -f -a "decode" -d 'Turn opaque ids back into database ids, rejecting forged ones'
complete -c veilkit -n "__fish_veilkit_using_subcommand help; and not __fish_seen_subcommand_from keygen keys breach encode decode reencode ids nonce records bench completions man help" -f -a "reencode" -d 'Rewrite opaque ids made with older keys under the current key'
complete -c veilkit -n "__fish_veilkit_using_subcommand help; and not __fish_seen_subcommand_from keygen keys breach encode decode reencode ids nonce records bench completions man help" -f -a "ids" -d 'Ids inside a database: SQL functions identical to encode and decode'
complete -c veilkit -n "__fish_veilkit_using_subcommand help; and not __fish_seen_subcommand_from keygen keys breach encode decode reencode ids nonce records bench completions man help" -f -a "nonce" -d 'Make unique counter, sortable or encrypted nonces of 64, 96 or 128 bits'
complete -c veilkit -n "__fish_veilkit_using_subcommand help; and not __fish_seen_subcommand_from keygen keys breach encode decode reencode ids nonce records bench completions man help" -f -a "records" -d 'Encrypt record files at rest and still fetch one record by key in microseconds'
complete -c veilkit -n "__fish_veilkit_using_subcommand help; and not __fish_seen_subcommand_from keygen keys breach encode decode reencode ids nonce records bench completions man help" -f -a "bench" -d 'Measure ids, nonces, codecs, breach lookups and record files on this machine'
complete -c veilkit -n "__fish_veilkit_using_subcommand help; and not __fish_seen_subcommand_from keygen keys breach encode decode reencode ids nonce records bench completions man help" -f -a "completions" -d 'Print the completion script for a shell'
complete -c veilkit -n "__fish_veilkit_using_subcommand help; and not __fish_seen_subcommand_from keygen keys breach encode decode reencode ids nonce records bench completions man help" -f -a "man" -d 'Print the manual page, or write every page into a directory'
complete -c veilkit -n "__fish_veilkit_using_subcommand help; and not __fish_seen_subcommand_from keygen keys breach encode decode reencode ids nonce records bench completions man help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
