
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'veilkit' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'veilkit'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'veilkit' {
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('keygen', 'keygen', [CompletionResultType]::ParameterValue, 'Generate a master key, or add a new current key to a keyring')
            [CompletionResult]::new('keys', 'keys', [CompletionResultType]::ParameterValue, 'Show the ids and fingerprints of a keyring (never the keys)')
            [CompletionResult]::new('breach', 'breach', [CompletionResultType]::ParameterValue, 'Build a Pwned Passwords index once, then check hashes and passwords in microseconds')
            [CompletionResult]::new('encode', 'encode', [CompletionResultType]::ParameterValue, 'Turn database ids into opaque ids (AES-128, UUIDv8 by default)')
            [CompletionResult]::new('decode', 'decode', [CompletionResultType]::ParameterValue, 'Turn opaque ids back into database ids, rejecting forged ones')
            [CompletionResult]::new('reencode', 'reencode', [CompletionResultType]::ParameterValue, 'Rewrite opaque ids made with older keys under the current key')
            [CompletionResult]::new('ids', 'ids', [CompletionResultType]::ParameterValue, 'Ids inside a database: SQL functions identical to encode and decode')
            [CompletionResult]::new('nonce', 'nonce', [CompletionResultType]::ParameterValue, 'Make unique counter, sortable or encrypted nonces of 64, 96 or 128 bits')
            [CompletionResult]::new('records', 'records', [CompletionResultType]::ParameterValue, 'Encrypt record files at rest and still fetch one record by key in microseconds')
            [CompletionResult]::new('bench', 'bench', [CompletionResultType]::ParameterValue, 'Measure ids, nonces, codecs, breach lookups and record files on this machine')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print the completion script for a shell')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print the manual page, or write every page into a directory')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'veilkit;keygen' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the key to FILE (created 0600, atomically) instead of standard output')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the key to FILE (created 0600, atomically) instead of standard output')
            [CompletionResult]::new('--add', '--add', [CompletionResultType]::ParameterName, 'Append a new key to the keyring FILE; it becomes the current key')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Replace FILE if it exists')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Replace FILE if it exists')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'veilkit;keys' {
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print a JSON array of the keys instead of the table (schema: docs/JSON.md)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'veilkit;breach' {
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('build', 'build', [CompletionResultType]::ParameterValue, 'Build a dump (file, stdin or per-prefix directory) into an index')
            [CompletionResult]::new('download', 'download', [CompletionResultType]::ParameterValue, 'Download every range of the Pwned Passwords API straight into an index')
            [CompletionResult]::new('update', 'update', [CompletionResultType]::ParameterValue, 'Refresh an index from the range API, fetching only the ranges that changed')
            [CompletionResult]::new('query', 'query', [CompletionResultType]::ParameterValue, 'Look up hashes (arguments or stdin) or passwords (stdin) in an index')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Check passwords typed at a hidden prompt')
            [CompletionResult]::new('info', 'info', [CompletionResultType]::ParameterValue, 'Show an index''s kind, size, counts and format')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Check an index end to end: structure and every checksum')
            [CompletionResult]::new('export-ranges', 'export-ranges', [CompletionResultType]::ParameterValue, 'Write an index as the 1,048,576 range files the HIBP range API serves')
            [CompletionResult]::new('compress-ranges', 'compress-ranges', [CompletionResultType]::ParameterValue, 'Compress every range body of an index ahead, for serve''s Zstandard answers')
            [CompletionResult]::new('merge', 'merge', [CompletionResultType]::ParameterValue, 'Replace the prefixes of an index that a directory of range files holds')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'List the hashes added, removed and re-counted between two indexes')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Serve the HIBP range API (and /check) from indexes on a local port')
            [CompletionResult]::new('okon', 'okon', [CompletionResultType]::ParameterValue, 'Answer as okon-cli does (for keepassxc-cli analyze --okon)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'veilkit;breach;build' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'The index to write')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'The index to write')
            [CompletionResult]::new('--kind', '--kind', [CompletionResultType]::ParameterName, 'The hash kind [default: detected from the first line]')
            [CompletionResult]::new('--tier', '--tier', [CompletionResultType]::ParameterName, 'How much the index keeps')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Threads building filter shards [default: the number of processors]')
            [CompletionResult]::new('--threads', '--threads', [CompletionResultType]::ParameterName, 'Threads building filter shards [default: the number of processors]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--allow-partial', '--allow-partial', [CompletionResultType]::ParameterName, 'Build from a per-prefix directory that lacks range files (an interrupted download): the index is marked partial, and `info` and `query` say so')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Replace INDEX if it exists')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Replace INDEX if it exists')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'veilkit;breach;download' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'The index to write')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'The index to write')
            [CompletionResult]::new('--kind', '--kind', [CompletionResultType]::ParameterName, 'The hash kind')
            [CompletionResult]::new('--tier', '--tier', [CompletionResultType]::ParameterName, 'How much the index keeps (as for `build`)')
            [CompletionResult]::new('--source', '--source', [CompletionResultType]::ParameterName, 'A mirror: a URL with `{prefix}`, or the base of a range API')
            [CompletionResult]::new('--parallel', '--parallel', [CompletionResultType]::ParameterName, 'Requests in flight at once')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Attempts after the first for each range')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds one request may take, body included')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'Extra trusted certificates (PEM file), beside the system''s')
            [CompletionResult]::new('--accept-encoding', '--accept-encoding', [CompletionResultType]::ParameterName, 'Content codings to ask for, most wanted first: zstd, gzip, br, identity. Brotli saves about a twentieth of gzip''s bytes and takes twice its CPU to decode')
            [CompletionResult]::new('--checkpoint-every', '--checkpoint-every', [CompletionResultType]::ParameterName, 'Ranges between two checkpoints of the index being written: at most this many are kept in the journal (fewer: a smaller journal, more syncs)')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Threads building filter shards [default: the number of processors]')
            [CompletionResult]::new('--threads', '--threads', [CompletionResultType]::ParameterName, 'Threads building filter shards [default: the number of processors]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Replace INDEX if it exists')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Replace INDEX if it exists')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'veilkit;breach;update' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the new index here instead of replacing INDEX')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the new index here instead of replacing INDEX')
            [CompletionResult]::new('--source', '--source', [CompletionResultType]::ParameterName, 'A mirror: a URL with `{prefix}`, or the base of a range API')
            [CompletionResult]::new('--parallel', '--parallel', [CompletionResultType]::ParameterName, 'Requests in flight at once')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Attempts after the first for each range')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds one request may take, body included')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'Extra trusted certificates (PEM file), beside the system''s')
            [CompletionResult]::new('--accept-encoding', '--accept-encoding', [CompletionResultType]::ParameterName, 'Content codings to ask for, most wanted first: zstd, gzip, br, identity. Brotli saves about a twentieth of gzip''s bytes and takes twice its CPU to decode')
            [CompletionResult]::new('--checkpoint-every', '--checkpoint-every', [CompletionResultType]::ParameterName, 'Ranges between two checkpoints of the index being written: at most this many are kept in the journal (fewer: a smaller journal, more syncs)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the summary as one JSON object on standard output')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Replace NEW if it exists')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Replace NEW if it exists')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'veilkit;breach;query' {
            [CompletionResult]::new('-i', '-i', [CompletionResultType]::ParameterName, 'The index [default: none; only --passwords works without one]')
            [CompletionResult]::new('--index', '--index', [CompletionResultType]::ParameterName, 'The index [default: none; only --passwords works without one]')
            [CompletionResult]::new('--filter', '--filter', [CompletionResultType]::ParameterName, 'A filter built from INDEX (`breach build --tier filter INDEX`), read into memory: hashes it rules out are answered without touching INDEX')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--passwords', '--passwords', [CompletionResultType]::ParameterName, 'Read passwords from standard input instead of hashes')
            [CompletionResult]::new('-0', '-0', [CompletionResultType]::ParameterName, 'Lines on standard input end with NUL, not newline (a password may hold any other byte)')
            [CompletionResult]::new('--null', '--null', [CompletionResultType]::ParameterName, 'Lines on standard input end with NUL, not newline (a password may hold any other byte)')
            [CompletionResult]::new('--keep-going', '--keep-going', [CompletionResultType]::ParameterName, 'Go on past a bad line: it is reported on stderr with its number and answered `?`, so output lines stay aligned with input lines; the status is 2 at the end')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'veilkit;breach;check' {
            [CompletionResult]::new('-i', '-i', [CompletionResultType]::ParameterName, 'The index [default: the embedded list of common passwords]')
            [CompletionResult]::new('--index', '--index', [CompletionResultType]::ParameterName, 'The index [default: the embedded list of common passwords]')
            [CompletionResult]::new('--filter', '--filter', [CompletionResultType]::ParameterName, 'A filter built from INDEX, read into memory: passwords it rules out are answered without touching INDEX')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('-0', '-0', [CompletionResultType]::ParameterName, 'Lines on standard input (not a terminal) end with NUL, not newline')
            [CompletionResult]::new('--null', '--null', [CompletionResultType]::ParameterName, 'Lines on standard input (not a terminal) end with NUL, not newline')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'veilkit;breach;info' {
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON object instead of `key: value` lines (schema: docs/JSON.md)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'veilkit;breach;verify' {
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as one JSON object on standard output (schema: docs/JSON.md); a problem is still named on standard error, with status 2')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'veilkit;breach;export-ranges' {
            [CompletionResult]::new('-i', '-i', [CompletionResultType]::ParameterName, 'The index')
            [CompletionResult]::new('--index', '--index', [CompletionResultType]::ParameterName, 'The index')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'The directory to create')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'The directory to create')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--skip-empty', '--skip-empty', [CompletionResultType]::ParameterName, 'Write files only for prefixes that hold hashes')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'veilkit;breach;compress-ranges' {
            [CompletionResult]::new('-i', '-i', [CompletionResultType]::ParameterName, 'The exact index')
            [CompletionResult]::new('--index', '--index', [CompletionResultType]::ParameterName, 'The exact index')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'The file to write')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'The file to write')
            [CompletionResult]::new('--level', '--level', [CompletionResultType]::ParameterName, 'Zstandard''s level, 1 to 22')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Threads [default: the number of processors]')
            [CompletionResult]::new('--threads', '--threads', [CompletionResultType]::ParameterName, 'Threads [default: the number of processors]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Replace FILE if it exists')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Replace FILE if it exists')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'veilkit;breach;merge' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'The new index')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'The new index')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Replace NEW_INDEX if it exists')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Replace NEW_INDEX if it exists')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'veilkit;breach;diff' {
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'JSON Lines instead: one object per changed hash ({"type":"added"|"removed"| "recounted", "hash", "count" or "old_count" and "new_count"}), then one {"type":"summary"} (schema: docs/JSON.md)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'veilkit;breach;serve' {
            [CompletionResult]::new('-i', '-i', [CompletionResultType]::ParameterName, 'An index to serve (give -i twice for a SHA-1 and an NTLM index)')
            [CompletionResult]::new('--index', '--index', [CompletionResultType]::ParameterName, 'An index to serve (give -i twice for a SHA-1 and an NTLM index)')
            [CompletionResult]::new('--listen', '--listen', [CompletionResultType]::ParameterName, 'The address or host name and port to listen on (`localhost:8000`, `[::1]:8000`; port 0: any free port). The first line on stderr is `veilkit: listening on http://ADDR:PORT`, with --quiet or without it')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Worker threads [default: the number of processors]')
            [CompletionResult]::new('--threads', '--threads', [CompletionResultType]::ParameterName, 'Worker threads [default: the number of processors]')
            [CompletionResult]::new('--max-connections', '--max-connections', [CompletionResultType]::ParameterName, 'Connections served at once')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'Serve HTTPS with this certificate chain (PEM, the server''s certificate first), as openssl, mkcert or certbot write it; needs --tls-key')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The private key of --tls-cert (PEM: PKCS#8, PKCS#1 RSA or SEC1 EC)')
            [CompletionResult]::new('--zstd-bodies', '--zstd-bodies', [CompletionResultType]::ParameterName, 'Range bodies compressed ahead by `breach compress-ranges` from one of the indexes (give it once per index): sent as they are to clients that ask for Zstandard, instead of compressing each answer. Refused unless made from that very index')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--in-memory', '--in-memory', [CompletionResultType]::ParameterName, 'Read the indexes into memory (huge pages where the system allows) instead of mapping them: single lookups (/check) about 1.6x faster at 100M hashes, for the memory of the files; ranges are bound by formatting and HTTP, not memory. A reload (SIGHUP) reads the new files while the old ones are served, so it needs their memory again meanwhile: a file larger than the memory available is refused, at the start and on a reload (which then keeps serving the old ones)')
            [CompletionResult]::new('--no-verify', '--no-verify', [CompletionResultType]::ParameterName, 'Start without verifying the indexes first (every checksum, about 1 s per GB): lookups still check the tables they read, but a damaged record would go unnoticed')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'veilkit;breach;okon' {
            [CompletionResult]::new('--path', '--path', [CompletionResultType]::ParameterName, 'The SHA-1 index (any tier; any file name)')
            [CompletionResult]::new('--hash', '--hash', [CompletionResultType]::ParameterName, 'The SHA-1 hash, 40 hex digits in either case')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'veilkit;breach;help' {
            [CompletionResult]::new('build', 'build', [CompletionResultType]::ParameterValue, 'Build a dump (file, stdin or per-prefix directory) into an index')
            [CompletionResult]::new('download', 'download', [CompletionResultType]::ParameterValue, 'Download every range of the Pwned Passwords API straight into an index')
            [CompletionResult]::new('update', 'update', [CompletionResultType]::ParameterValue, 'Refresh an index from the range API, fetching only the ranges that changed')
            [CompletionResult]::new('query', 'query', [CompletionResultType]::ParameterValue, 'Look up hashes (arguments or stdin) or passwords (stdin) in an index')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Check passwords typed at a hidden prompt')
            [CompletionResult]::new('info', 'info', [CompletionResultType]::ParameterValue, 'Show an index''s kind, size, counts and format')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Check an index end to end: structure and every checksum')
            [CompletionResult]::new('export-ranges', 'export-ranges', [CompletionResultType]::ParameterValue, 'Write an index as the 1,048,576 range files the HIBP range API serves')
            [CompletionResult]::new('compress-ranges', 'compress-ranges', [CompletionResultType]::ParameterValue, 'Compress every range body of an index ahead, for serve''s Zstandard answers')
            [CompletionResult]::new('merge', 'merge', [CompletionResultType]::ParameterValue, 'Replace the prefixes of an index that a directory of range files holds')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'List the hashes added, removed and re-counted between two indexes')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Serve the HIBP range API (and /check) from indexes on a local port')
            [CompletionResult]::new('okon', 'okon', [CompletionResultType]::ParameterValue, 'Answer as okon-cli does (for keepassxc-cli analyze --okon)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'veilkit;breach;help;build' {
            break
        }
        'veilkit;breach;help;download' {
            break
        }
        'veilkit;breach;help;update' {
            break
        }
        'veilkit;breach;help;query' {
            break
        }
        'veilkit;breach;help;check' {
            break
        }
        'veilkit;breach;help;info' {
            break
        }
        'veilkit;breach;help;verify' {
            break
        }
        'veilkit;breach;help;export-ranges' {
            break
        }
        'veilkit;breach;help;compress-ranges' {
            break
        }
        'veilkit;breach;help;merge' {
            break
        }
        'veilkit;breach;help;diff' {
            break
        }
        'veilkit;breach;help;serve' {
            break
        }
        'veilkit;breach;help;okon' {
            break
        }
        'veilkit;breach;help;help' {
            break
        }
        'veilkit;encode' {
            [CompletionResult]::new('--scheme', '--scheme', [CompletionResultType]::ParameterName, 'The construction: see veilkit-encode(1) and docs/IDS.md')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Text form of encoded ids [default: uuid for --scheme uuid, else hex]')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'Per-table or per-tenant name: ids of one context do not decode in another')
            [CompletionResult]::new('--prefix', '--prefix', [CompletionResultType]::ParameterName, 'A type prefix such as `usr_` written before encoded ids, required and stripped when decoding')
            [CompletionResult]::new('--rounds', '--rounds', [CompletionResultType]::ParameterName, 'Feistel rounds of the uuid scheme [default: 3; 2 with a stored nonce]; more rounds widen the security margin, one AES call each. Decoding needs the same number')
            [CompletionResult]::new('--clear-bit', '--clear-bit', [CompletionResultType]::ParameterName, 'The bit cycle walking keeps clear, 0-127, in the block read as a little-endian 128-bit number [default: 63]')
            [CompletionResult]::new('--field', '--field', [CompletionResultType]::ParameterName, 'Transform only field N of each line (counted from 1, as cut does); the rest of the line is left as it is. A UTF-8 byte order mark before the first line (as Windows editors and spreadsheets save text) is no part of an id or field: without --field or --header it is skipped (each line is one id), with either the output starts with it as the input did')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'The field separator for --field: one character, or `\t` [default: tab; comma with --csv]')
            [CompletionResult]::new('--delimiter', '--delimiter', [CompletionResultType]::ParameterName, 'The field separator for --field: one character, or `\t` [default: tab; comma with --csv]')
            [CompletionResult]::new('--nonce-field', '--nonce-field', [CompletionResultType]::ParameterName, 'With --field and a stored nonce: the field holding the nonce (read by encode, written by decode and by --random-nonce)')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--stored-nonce', '--stored-nonce', [CompletionResultType]::ParameterName, 'The stored-nonce form: input lines are `ID NONCE` (decimal), and decode prints `ID NONCE`. Carries no redundancy: forged ids cannot be rejected')
            [CompletionResult]::new('--csv', '--csv', [CompletionResultType]::ParameterName, 'Read the input as CSV (RFC 4180, as `records` reads it): field N may be quoted, and quoted fields may hold the delimiter and line ends; every other byte is passed through as it was. The field written in its place is quoted only when it must be (a value holding the delimiter, a quote, CR or LF: in double quotes, quotes doubled), whether or not the input''s field was quoted; ids, UUIDs and the numbers decoded never need it. Without --csv, lines are split at every delimiter, as `cut` does (TSV and plain delimiters)')
            [CompletionResult]::new('--header', '--header', [CompletionResultType]::ParameterName, 'Copy the first line (the first record with --csv) to the output unchanged: a header row')
            [CompletionResult]::new('--keep-going', '--keep-going', [CompletionResultType]::ParameterName, 'Report each bad line on stderr, write an empty line in its place, go on, and exit 2 at the end (default: stop at the first bad line)')
            [CompletionResult]::new('--random-nonce', '--random-nonce', [CompletionResultType]::ParameterName, 'Stored-nonce form with a fresh random nonce per id; prints `ID NONCE OPAQUE` (or, with --field, writes the nonce into --nonce-field). Store the nonce')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'veilkit;decode' {
            [CompletionResult]::new('--scheme', '--scheme', [CompletionResultType]::ParameterName, 'The construction: see veilkit-encode(1) and docs/IDS.md')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Text form of encoded ids [default: uuid for --scheme uuid, else hex]')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'Per-table or per-tenant name: ids of one context do not decode in another')
            [CompletionResult]::new('--prefix', '--prefix', [CompletionResultType]::ParameterName, 'A type prefix such as `usr_` written before encoded ids, required and stripped when decoding')
            [CompletionResult]::new('--rounds', '--rounds', [CompletionResultType]::ParameterName, 'Feistel rounds of the uuid scheme [default: 3; 2 with a stored nonce]; more rounds widen the security margin, one AES call each. Decoding needs the same number')
            [CompletionResult]::new('--clear-bit', '--clear-bit', [CompletionResultType]::ParameterName, 'The bit cycle walking keeps clear, 0-127, in the block read as a little-endian 128-bit number [default: 63]')
            [CompletionResult]::new('--field', '--field', [CompletionResultType]::ParameterName, 'Transform only field N of each line (counted from 1, as cut does); the rest of the line is left as it is. A UTF-8 byte order mark before the first line (as Windows editors and spreadsheets save text) is no part of an id or field: without --field or --header it is skipped (each line is one id), with either the output starts with it as the input did')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'The field separator for --field: one character, or `\t` [default: tab; comma with --csv]')
            [CompletionResult]::new('--delimiter', '--delimiter', [CompletionResultType]::ParameterName, 'The field separator for --field: one character, or `\t` [default: tab; comma with --csv]')
            [CompletionResult]::new('--nonce-field', '--nonce-field', [CompletionResultType]::ParameterName, 'With --field and a stored nonce: the field holding the nonce (read by encode, written by decode and by --random-nonce)')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)')
            [CompletionResult]::new('--key-id', '--key-id', [CompletionResultType]::ParameterName, 'The key that decodes stored-nonce aes128 and cycle-walk ids, which cannot name their key [default: the current key]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--stored-nonce', '--stored-nonce', [CompletionResultType]::ParameterName, 'The stored-nonce form: input lines are `ID NONCE` (decimal), and decode prints `ID NONCE`. Carries no redundancy: forged ids cannot be rejected')
            [CompletionResult]::new('--csv', '--csv', [CompletionResultType]::ParameterName, 'Read the input as CSV (RFC 4180, as `records` reads it): field N may be quoted, and quoted fields may hold the delimiter and line ends; every other byte is passed through as it was. The field written in its place is quoted only when it must be (a value holding the delimiter, a quote, CR or LF: in double quotes, quotes doubled), whether or not the input''s field was quoted; ids, UUIDs and the numbers decoded never need it. Without --csv, lines are split at every delimiter, as `cut` does (TSV and plain delimiters)')
            [CompletionResult]::new('--header', '--header', [CompletionResultType]::ParameterName, 'Copy the first line (the first record with --csv) to the output unchanged: a header row')
            [CompletionResult]::new('--keep-going', '--keep-going', [CompletionResultType]::ParameterName, 'Report each bad line on stderr, write an empty line in its place, go on, and exit 2 at the end (default: stop at the first bad line)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'veilkit;reencode' {
            [CompletionResult]::new('--scheme', '--scheme', [CompletionResultType]::ParameterName, 'The construction: see veilkit-encode(1) and docs/IDS.md')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Text form of encoded ids [default: uuid for --scheme uuid, else hex]')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'Per-table or per-tenant name: ids of one context do not decode in another')
            [CompletionResult]::new('--prefix', '--prefix', [CompletionResultType]::ParameterName, 'A type prefix such as `usr_` written before encoded ids, required and stripped when decoding')
            [CompletionResult]::new('--rounds', '--rounds', [CompletionResultType]::ParameterName, 'Feistel rounds of the uuid scheme [default: 3; 2 with a stored nonce]; more rounds widen the security margin, one AES call each. Decoding needs the same number')
            [CompletionResult]::new('--clear-bit', '--clear-bit', [CompletionResultType]::ParameterName, 'The bit cycle walking keeps clear, 0-127, in the block read as a little-endian 128-bit number [default: 63]')
            [CompletionResult]::new('--field', '--field', [CompletionResultType]::ParameterName, 'Transform only field N of each line (counted from 1, as cut does); the rest of the line is left as it is. A UTF-8 byte order mark before the first line (as Windows editors and spreadsheets save text) is no part of an id or field: without --field or --header it is skipped (each line is one id), with either the output starts with it as the input did')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'The field separator for --field: one character, or `\t` [default: tab; comma with --csv]')
            [CompletionResult]::new('--delimiter', '--delimiter', [CompletionResultType]::ParameterName, 'The field separator for --field: one character, or `\t` [default: tab; comma with --csv]')
            [CompletionResult]::new('--nonce-field', '--nonce-field', [CompletionResultType]::ParameterName, 'With --field and a stored nonce: the field holding the nonce (read by encode, written by decode and by --random-nonce)')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)')
            [CompletionResult]::new('--key-id', '--key-id', [CompletionResultType]::ParameterName, 'The key that made stored-nonce aes128 and cycle-walk ids, which cannot name their key [default: the current key]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--stored-nonce', '--stored-nonce', [CompletionResultType]::ParameterName, 'The stored-nonce form: input lines are `ID NONCE` (decimal), and decode prints `ID NONCE`. Carries no redundancy: forged ids cannot be rejected')
            [CompletionResult]::new('--csv', '--csv', [CompletionResultType]::ParameterName, 'Read the input as CSV (RFC 4180, as `records` reads it): field N may be quoted, and quoted fields may hold the delimiter and line ends; every other byte is passed through as it was. The field written in its place is quoted only when it must be (a value holding the delimiter, a quote, CR or LF: in double quotes, quotes doubled), whether or not the input''s field was quoted; ids, UUIDs and the numbers decoded never need it. Without --csv, lines are split at every delimiter, as `cut` does (TSV and plain delimiters)')
            [CompletionResult]::new('--header', '--header', [CompletionResultType]::ParameterName, 'Copy the first line (the first record with --csv) to the output unchanged: a header row')
            [CompletionResult]::new('--keep-going', '--keep-going', [CompletionResultType]::ParameterName, 'Report each bad line on stderr, write an empty line in its place, go on, and exit 2 at the end (default: stop at the first bad line)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'veilkit;ids' {
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('sql', 'sql', [CompletionResultType]::ParameterValue, 'Write a psql script defining encode/decode functions identical to the CLI''s')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'veilkit;ids;sql' {
            [CompletionResult]::new('--dialect', '--dialect', [CompletionResultType]::ParameterName, 'The database')
            [CompletionResult]::new('--scheme', '--scheme', [CompletionResultType]::ParameterName, 'The construction, as for encode')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Text form [default: uuid (a uuid value) for --scheme uuid, else hex]')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'A context (lower-case letters, digits, _): functions encode_NAME, decode_NAME, try_decode_NAME. Repeatable; without any, the default (empty) context and functions encode, decode, try_decode')
            [CompletionResult]::new('--prefix', '--prefix', [CompletionResultType]::ParameterName, 'A prefix written before ids and required when decoding (the functions then take and return text)')
            [CompletionResult]::new('--rounds', '--rounds', [CompletionResultType]::ParameterName, 'Feistel rounds of the uuid scheme [default: 3]')
            [CompletionResult]::new('--clear-bit', '--clear-bit', [CompletionResultType]::ParameterName, 'The bit cycle walking keeps clear [default: 63]')
            [CompletionResult]::new('--schema', '--schema', [CompletionResultType]::ParameterName, 'The schema of the functions and of the key table')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the script to FILE (mode 0600, atomically) instead of standard output')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the script to FILE (mode 0600, atomically) instead of standard output')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--rotate', '--rotate', [CompletionResultType]::ParameterName, 'Only replace the keys (after adding a key to the ring): the functions stay')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Replace FILE if it exists')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Replace FILE if it exists')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'veilkit;ids;help' {
            [CompletionResult]::new('sql', 'sql', [CompletionResultType]::ParameterValue, 'Write a psql script defining encode/decode functions identical to the CLI''s')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'veilkit;ids;help;sql' {
            break
        }
        'veilkit;ids;help;help' {
            break
        }
        'veilkit;nonce' {
            [CompletionResult]::new('--kind', '--kind', [CompletionResultType]::ParameterName, 'The kind of nonce')
            [CompletionResult]::new('--bits', '--bits', [CompletionResultType]::ParameterName, 'Bits per nonce')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'How many nonces')
            [CompletionResult]::new('--count', '--count', [CompletionResultType]::ParameterName, 'How many nonces')
            [CompletionResult]::new('--machine-id', '--machine-id', [CompletionResultType]::ParameterName, 'This machine''s id, 0 to 511, or `auto`: the lowest id that no live process holds under the guard (said on stderr). Every machine of a fleet needs its own, unless they share their state in PostgreSQL')
            [CompletionResult]::new('--machine-id-from', '--machine-id-from', [CompletionResultType]::ParameterName, 'Take the machine id from a node list: this host''s place (from 0) among the host names in FILE, one a line, the same list on every host (as NoNoncense does)')
            [CompletionResult]::new('--state', '--state', [CompletionResultType]::ParameterName, 'Where reservations are kept: a state file shared by the processes of this machine, or a PostgreSQL database shared by a fleet (postgres://USER@HOST:PORT/DB; the table is created on first use) [default: $XDG_STATE_HOME/veilkit/nonce-state]')
            [CompletionResult]::new('--guard', '--guard', [CompletionResultType]::ParameterName, 'Hold a lease on the machine id in this PostgreSQL database while running: another live process with the same id, on any host, refuses to start (postgres://...)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'How nonces are written')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--decrypt', '--decrypt', [CompletionResultType]::ParameterName, 'Read encrypted nonces (in --format) from stdin and print the counter values they were made from')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'veilkit;records' {
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('seal', 'seal', [CompletionResultType]::ParameterValue, 'Seal a record file (lines, CSV, TSV, JSON lines) into an encrypted one')
            [CompletionResult]::new('open', 'open', [CompletionResultType]::ParameterValue, 'Print a record file''s records: the exact original bytes, after verifying them')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Fetch records by key or number, decrypting only the pages they need')
            [CompletionResult]::new('append', 'append', [CompletionResultType]::ParameterValue, 'Add records to a record file in place; a record with an existing key supersedes it')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Remove records from a record file in place')
            [CompletionResult]::new('rekey', 'rekey', [CompletionResultType]::ParameterValue, 'Add, remove or replace a record file''s key slots, or rotate its data key')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Check that every page of a record file authenticates')
            [CompletionResult]::new('info', 'info', [CompletionResultType]::ParameterValue, 'Show a record file''s key slots and, with a key, its records and pages')
            [CompletionResult]::new('encrypt-fields', 'encrypt-fields', [CompletionResultType]::ParameterValue, 'Encrypt chosen CSV/TSV columns, with keyed token columns for equality lookups')
            [CompletionResult]::new('decrypt-fields', 'decrypt-fields', [CompletionResultType]::ParameterValue, 'Decrypt CSV/TSV columns made by encrypt-fields and drop their token columns')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'veilkit;records;seal' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'The record file to write: a path, or s3://BUCKET/KEY (uploaded once sealed: one PUT, or a multipart upload past 16 MiB; nothing is visible under the key until the whole file is)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'The record file to write: a path, or s3://BUCKET/KEY (uploaded once sealed: one PUT, or a multipart upload past 16 MiB; nothing is visible under the key until the whole file is)')
            [CompletionResult]::new('--input-format', '--input-format', [CompletionResultType]::ParameterName, 'The input format [default: from INPUT''s extension, else lines]')
            [CompletionResult]::new('-k', '-k', [CompletionResultType]::ParameterName, 'The key field of CSV, TSV and JSON lines: a number from 1, or a name (a name two columns of a header row share is refused: give the number)')
            [CompletionResult]::new('--key-field', '--key-field', [CompletionResultType]::ParameterName, 'The key field of CSV, TSV and JSON lines: a number from 1, or a name (a name two columns of a header row share is refused: give the number)')
            [CompletionResult]::new('--page-size', '--page-size', [CompletionResultType]::ParameterName, 'Page size in bytes: a power of two from 512 to 1048576')
            [CompletionResult]::new('--compress', '--compress', [CompletionResultType]::ParameterName, 'Compress each data page''s records before sealing: `zstd` (level 9) or `zstd:LEVEL` (1 to 19), or `none`. Pages then hold more records. An input of 1 MiB or more also gets a dictionary, trained on its first records and sealed in the file, that every page is compressed with: a file near the size of zstd of the whole input. The file''s size follows the compressed size (see docs/RECORDS-FORMAT.md on what that reveals)')
            [CompletionResult]::new('--tag-bits', '--tag-bits', [CompletionResultType]::ParameterName, 'Bits of each index tag: 16, or 32 [default: 32 for -o s3://..., else 16]. With 16 and 4 KiB pages, a lookup in a large file first reads another key''s data page (same bucket, same tag) about once in 70 (locally a few microseconds; at a URL one or two more requests); with 32, about once in 7 million, for 2 bytes more a record in the index. Seal files that will be read at a URL with 32')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)')
            [CompletionResult]::new('--passphrase-file', '--passphrase-file', [CompletionResultType]::ParameterName, 'Read the passphrase from the first line of PATH (`/dev/fd/N` reads an open descriptor)')
            [CompletionResult]::new('--identity', '--identity', [CompletionResultType]::ParameterName, 'An age identity file (`age-keygen` output: AGE-SECRET-KEY-1... lines, `#` comments); opens the file''s age recipient slots. Repeatable')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Add a key slot for an age X25519 recipient (age1..., as `age-keygen` prints it); repeatable. Its identity opens the file; the recipient alone cannot')
            [CompletionResult]::new('--recipient', '--recipient', [CompletionResultType]::ParameterName, 'Add a key slot for an age X25519 recipient (age1..., as `age-keygen` prints it); repeatable. Its identity opens the file; the recipient alone cannot')
            [CompletionResult]::new('--recipients-file', '--recipients-file', [CompletionResultType]::ParameterName, 'Add a key slot for each recipient in PATH (one per line; blank lines and `#` comments skipped, as `age -R` reads it); repeatable')
            [CompletionResult]::new('--argon2-memory', '--argon2-memory', [CompletionResultType]::ParameterName, 'Argon2id memory of a new passphrase slot, in MiB (at most 1024)')
            [CompletionResult]::new('--argon2-passes', '--argon2-passes', [CompletionResultType]::ParameterName, 'Argon2id passes of a new passphrase slot (at most 10)')
            [CompletionResult]::new('--endpoint', '--endpoint', [CompletionResultType]::ParameterName, 'For -o s3://...: the S3-compatible store''s URL (addressed in path style), instead of AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL or AWS''s own for the region')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'For an https:// endpoint: trust the CA certificates in this PEM file too')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--no-header', '--no-header', [CompletionResultType]::ParameterName, 'CSV/TSV input has no header row')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Replace FILE if it exists')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Replace FILE if it exists')
            [CompletionResult]::new('--passphrase', '--passphrase', [CompletionResultType]::ParameterName, 'Ask for a passphrase at a hidden prompt on the terminal (twice when it makes a new key slot)')
            [CompletionResult]::new('--weak-ok', '--weak-ok', [CompletionResultType]::ParameterName, 'Accept a new passphrase that is among the 30,000 most common passwords (refused otherwise, with its rank)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'veilkit;records;open' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write to OUT instead of standard output')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write to OUT instead of standard output')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)')
            [CompletionResult]::new('--passphrase-file', '--passphrase-file', [CompletionResultType]::ParameterName, 'Read the passphrase from the first line of PATH (`/dev/fd/N` reads an open descriptor)')
            [CompletionResult]::new('--identity', '--identity', [CompletionResultType]::ParameterName, 'An age identity file (`age-keygen` output: AGE-SECRET-KEY-1... lines, `#` comments); opens the file''s age recipient slots. Repeatable')
            [CompletionResult]::new('--parallel', '--parallel', [CompletionResultType]::ParameterName, 'For a FILE at a URL: requests in flight at most (batch gets, open, verify)')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'For an https:// FILE: trust the CA certificates in this PEM file too (a private CA''s), beside the system''s')
            [CompletionResult]::new('--endpoint', '--endpoint', [CompletionResultType]::ParameterName, 'For an s3:// FILE: the S3-compatible store''s URL (addressed in path style), instead of AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL or AWS''s own for the region')
            [CompletionResult]::new('--pin', '--pin', [CompletionResultType]::ParameterName, 'Remember in PIN the highest commit each record file has shown, and refuse a copy older than that (storage serving an old copy again). Created when missing')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Replace OUT if it exists')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Replace OUT if it exists')
            [CompletionResult]::new('--passphrase', '--passphrase', [CompletionResultType]::ParameterName, 'Ask for a passphrase at a hidden prompt on the terminal (twice when it makes a new key slot)')
            [CompletionResult]::new('--weak-ok', '--weak-ok', [CompletionResultType]::ParameterName, 'Accept a new passphrase that is among the 30,000 most common passwords (refused otherwise, with its rank)')
            [CompletionResult]::new('--previous-commit', '--previous-commit', [CompletionResultType]::ParameterName, 'For a format-1 file whose newer header copy is damaged: use the intact copy, which may hold the commit before the last (its changes would then be missing)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'veilkit;records;get' {
            [CompletionResult]::new('--record', '--record', [CompletionResultType]::ParameterName, 'Fetch the N-th current record (from 1); repeatable')
            [CompletionResult]::new('--keys', '--keys', [CompletionResultType]::ParameterName, 'Read keys from PATH, one per line (`-` for standard input), as exact bytes: a UTF-8 byte order mark before the first stays part of it, with a warning')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)')
            [CompletionResult]::new('--passphrase-file', '--passphrase-file', [CompletionResultType]::ParameterName, 'Read the passphrase from the first line of PATH (`/dev/fd/N` reads an open descriptor)')
            [CompletionResult]::new('--identity', '--identity', [CompletionResultType]::ParameterName, 'An age identity file (`age-keygen` output: AGE-SECRET-KEY-1... lines, `#` comments); opens the file''s age recipient slots. Repeatable')
            [CompletionResult]::new('--parallel', '--parallel', [CompletionResultType]::ParameterName, 'For a FILE at a URL: requests in flight at most (batch gets, open, verify)')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'For an https:// FILE: trust the CA certificates in this PEM file too (a private CA''s), beside the system''s')
            [CompletionResult]::new('--endpoint', '--endpoint', [CompletionResultType]::ParameterName, 'For an s3:// FILE: the S3-compatible store''s URL (addressed in path style), instead of AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL or AWS''s own for the region')
            [CompletionResult]::new('--pin', '--pin', [CompletionResultType]::ParameterName, 'Remember in PIN the highest commit each record file has shown, and refuse a copy older than that (storage serving an old copy again). Created when missing')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--header', '--header', [CompletionResultType]::ParameterName, 'Print the input''s header row first (CSV and TSV files)')
            [CompletionResult]::new('--passphrase', '--passphrase', [CompletionResultType]::ParameterName, 'Ask for a passphrase at a hidden prompt on the terminal (twice when it makes a new key slot)')
            [CompletionResult]::new('--weak-ok', '--weak-ok', [CompletionResultType]::ParameterName, 'Accept a new passphrase that is among the 30,000 most common passwords (refused otherwise, with its rank)')
            [CompletionResult]::new('--previous-commit', '--previous-commit', [CompletionResultType]::ParameterName, 'For a format-1 file whose newer header copy is damaged: use the intact copy, which may hold the commit before the last (its changes would then be missing)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'veilkit;records;append' {
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)')
            [CompletionResult]::new('--passphrase-file', '--passphrase-file', [CompletionResultType]::ParameterName, 'Read the passphrase from the first line of PATH (`/dev/fd/N` reads an open descriptor)')
            [CompletionResult]::new('--identity', '--identity', [CompletionResultType]::ParameterName, 'An age identity file (`age-keygen` output: AGE-SECRET-KEY-1... lines, `#` comments); opens the file''s age recipient slots. Repeatable')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Refused, with the reason: an age recipient cannot append (see the man page)')
            [CompletionResult]::new('--recipient', '--recipient', [CompletionResultType]::ParameterName, 'Refused, with the reason: an age recipient cannot append (see the man page)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--no-header', '--no-header', [CompletionResultType]::ParameterName, 'CSV/TSV INPUT has no header row')
            [CompletionResult]::new('--passphrase', '--passphrase', [CompletionResultType]::ParameterName, 'Ask for a passphrase at a hidden prompt on the terminal (twice when it makes a new key slot)')
            [CompletionResult]::new('--weak-ok', '--weak-ok', [CompletionResultType]::ParameterName, 'Accept a new passphrase that is among the 30,000 most common passwords (refused otherwise, with its rank)')
            [CompletionResult]::new('--previous-commit', '--previous-commit', [CompletionResultType]::ParameterName, 'For a format-1 file whose newer header copy is damaged: use the intact copy, which may hold the commit before the last (its changes would then be missing)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'veilkit;records;delete' {
            [CompletionResult]::new('--keys', '--keys', [CompletionResultType]::ParameterName, 'Read keys from PATH, one per line (`-` for standard input), as exact bytes: a UTF-8 byte order mark before the first stays part of it, with a warning')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)')
            [CompletionResult]::new('--passphrase-file', '--passphrase-file', [CompletionResultType]::ParameterName, 'Read the passphrase from the first line of PATH (`/dev/fd/N` reads an open descriptor)')
            [CompletionResult]::new('--identity', '--identity', [CompletionResultType]::ParameterName, 'An age identity file (`age-keygen` output: AGE-SECRET-KEY-1... lines, `#` comments); opens the file''s age recipient slots. Repeatable')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--passphrase', '--passphrase', [CompletionResultType]::ParameterName, 'Ask for a passphrase at a hidden prompt on the terminal (twice when it makes a new key slot)')
            [CompletionResult]::new('--weak-ok', '--weak-ok', [CompletionResultType]::ParameterName, 'Accept a new passphrase that is among the 30,000 most common passwords (refused otherwise, with its rank)')
            [CompletionResult]::new('--previous-commit', '--previous-commit', [CompletionResultType]::ParameterName, 'For a format-1 file whose newer header copy is damaged: use the intact copy, which may hold the commit before the last (its changes would then be missing)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'veilkit;records;rekey' {
            [CompletionResult]::new('--add-key-file', '--add-key-file', [CompletionResultType]::ParameterName, 'Add a slot for the current key of this key file')
            [CompletionResult]::new('--add-passphrase-file', '--add-passphrase-file', [CompletionResultType]::ParameterName, 'Add a slot for the passphrase on the first line of PATH')
            [CompletionResult]::new('--remove-key', '--remove-key', [CompletionResultType]::ParameterName, 'Remove the slot of a keyring key, named by its fingerprint (16 hex digits, as `records info` and `veilkit keys` show it) or by its id when only one slot has that id; repeatable')
            [CompletionResult]::new('--remove-recipient', '--remove-recipient', [CompletionResultType]::ParameterName, 'Remove the slot of an age recipient (age1..., as `records info` shows it); repeatable')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Add a key slot for an age X25519 recipient (age1..., as `age-keygen` prints it); repeatable. Its identity opens the file; the recipient alone cannot')
            [CompletionResult]::new('--recipient', '--recipient', [CompletionResultType]::ParameterName, 'Add a key slot for an age X25519 recipient (age1..., as `age-keygen` prints it); repeatable. Its identity opens the file; the recipient alone cannot')
            [CompletionResult]::new('--recipients-file', '--recipients-file', [CompletionResultType]::ParameterName, 'Add a key slot for each recipient in PATH (one per line; blank lines and `#` comments skipped, as `age -R` reads it); repeatable')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)')
            [CompletionResult]::new('--passphrase-file', '--passphrase-file', [CompletionResultType]::ParameterName, 'Read the passphrase from the first line of PATH (`/dev/fd/N` reads an open descriptor)')
            [CompletionResult]::new('--identity', '--identity', [CompletionResultType]::ParameterName, 'An age identity file (`age-keygen` output: AGE-SECRET-KEY-1... lines, `#` comments); opens the file''s age recipient slots. Repeatable')
            [CompletionResult]::new('--argon2-memory', '--argon2-memory', [CompletionResultType]::ParameterName, 'Argon2id memory of a new passphrase slot, in MiB (at most 1024)')
            [CompletionResult]::new('--argon2-passes', '--argon2-passes', [CompletionResultType]::ParameterName, 'Argon2id passes of a new passphrase slot (at most 10)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--add-passphrase', '--add-passphrase', [CompletionResultType]::ParameterName, 'Add a slot for a new passphrase, asked twice at a hidden prompt')
            [CompletionResult]::new('--remove-passphrase', '--remove-passphrase', [CompletionResultType]::ParameterName, 'Remove every passphrase slot')
            [CompletionResult]::new('--rotate-data-key', '--rotate-data-key', [CompletionResultType]::ParameterName, 'Rewrite the file under a new data key')
            [CompletionResult]::new('--passphrase', '--passphrase', [CompletionResultType]::ParameterName, 'Ask for a passphrase at a hidden prompt on the terminal (twice when it makes a new key slot)')
            [CompletionResult]::new('--weak-ok', '--weak-ok', [CompletionResultType]::ParameterName, 'Accept a new passphrase that is among the 30,000 most common passwords (refused otherwise, with its rank)')
            [CompletionResult]::new('--previous-commit', '--previous-commit', [CompletionResultType]::ParameterName, 'For a format-1 file whose newer header copy is damaged: use the intact copy, which may hold the commit before the last (its changes would then be missing)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'veilkit;records;verify' {
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)')
            [CompletionResult]::new('--passphrase-file', '--passphrase-file', [CompletionResultType]::ParameterName, 'Read the passphrase from the first line of PATH (`/dev/fd/N` reads an open descriptor)')
            [CompletionResult]::new('--identity', '--identity', [CompletionResultType]::ParameterName, 'An age identity file (`age-keygen` output: AGE-SECRET-KEY-1... lines, `#` comments); opens the file''s age recipient slots. Repeatable')
            [CompletionResult]::new('--parallel', '--parallel', [CompletionResultType]::ParameterName, 'For a FILE at a URL: requests in flight at most (batch gets, open, verify)')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'For an https:// FILE: trust the CA certificates in this PEM file too (a private CA''s), beside the system''s')
            [CompletionResult]::new('--endpoint', '--endpoint', [CompletionResultType]::ParameterName, 'For an s3:// FILE: the S3-compatible store''s URL (addressed in path style), instead of AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL or AWS''s own for the region')
            [CompletionResult]::new('--pin', '--pin', [CompletionResultType]::ParameterName, 'Remember in PIN the highest commit each record file has shown, and refuse a copy older than that (storage serving an old copy again). Created when missing')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--passphrase', '--passphrase', [CompletionResultType]::ParameterName, 'Ask for a passphrase at a hidden prompt on the terminal (twice when it makes a new key slot)')
            [CompletionResult]::new('--weak-ok', '--weak-ok', [CompletionResultType]::ParameterName, 'Accept a new passphrase that is among the 30,000 most common passwords (refused otherwise, with its rank)')
            [CompletionResult]::new('--previous-commit', '--previous-commit', [CompletionResultType]::ParameterName, 'For a format-1 file whose newer header copy is damaged: use the intact copy, which may hold the commit before the last (its changes would then be missing)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as one JSON object on standard output (schema: docs/JSON.md); a problem is still named on standard error, with status 2')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'veilkit;records;info' {
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)')
            [CompletionResult]::new('--passphrase-file', '--passphrase-file', [CompletionResultType]::ParameterName, 'Read the passphrase from the first line of PATH (`/dev/fd/N` reads an open descriptor)')
            [CompletionResult]::new('--identity', '--identity', [CompletionResultType]::ParameterName, 'An age identity file (`age-keygen` output: AGE-SECRET-KEY-1... lines, `#` comments); opens the file''s age recipient slots. Repeatable')
            [CompletionResult]::new('--parallel', '--parallel', [CompletionResultType]::ParameterName, 'For a FILE at a URL: requests in flight at most (batch gets, open, verify)')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'For an https:// FILE: trust the CA certificates in this PEM file too (a private CA''s), beside the system''s')
            [CompletionResult]::new('--endpoint', '--endpoint', [CompletionResultType]::ParameterName, 'For an s3:// FILE: the S3-compatible store''s URL (addressed in path style), instead of AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL or AWS''s own for the region')
            [CompletionResult]::new('--pin', '--pin', [CompletionResultType]::ParameterName, 'Remember in PIN the highest commit each record file has shown, and refuse a copy older than that (storage serving an old copy again). Created when missing')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--passphrase', '--passphrase', [CompletionResultType]::ParameterName, 'Ask for a passphrase at a hidden prompt on the terminal (twice when it makes a new key slot)')
            [CompletionResult]::new('--weak-ok', '--weak-ok', [CompletionResultType]::ParameterName, 'Accept a new passphrase that is among the 30,000 most common passwords (refused otherwise, with its rank)')
            [CompletionResult]::new('--previous-commit', '--previous-commit', [CompletionResultType]::ParameterName, 'For a format-1 file whose newer header copy is damaged: use the intact copy, which may hold the commit before the last (its changes would then be missing)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON object instead of `key: value` lines (schema: docs/JSON.md)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'veilkit;records;encrypt-fields' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write to OUT instead of standard output')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write to OUT instead of standard output')
            [CompletionResult]::new('--fields', '--fields', [CompletionResultType]::ParameterName, 'Columns to encrypt or decrypt: names from the header row, or numbers from 1, separated by commas')
            [CompletionResult]::new('--token-fields', '--token-fields', [CompletionResultType]::ParameterName, 'Columns with a NAME_token column after them (encrypt-fields adds them; decrypt-fields needs them only for input without a header row, where a token column cannot be told by its name)')
            [CompletionResult]::new('--bind', '--bind', [CompletionResultType]::ParameterName, 'Bind each encrypted value to these columns of its row (names or numbers, such as the row''s primary key): it then decrypts only in a row with the same values in them, so a value moved to another row fails. decrypt-fields needs the same --bind, and then refuses values made without it')
            [CompletionResult]::new('--input-format', '--input-format', [CompletionResultType]::ParameterName, 'The input format [default: tsv for .tsv files, else csv]')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'A context (a table or tenant name) that separates the keys of different uses')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--no-header', '--no-header', [CompletionResultType]::ParameterName, 'The input has no header row (columns are then numbers)')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Replace OUT if it exists')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Replace OUT if it exists')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'veilkit;records;decrypt-fields' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write to OUT instead of standard output')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write to OUT instead of standard output')
            [CompletionResult]::new('--fields', '--fields', [CompletionResultType]::ParameterName, 'Columns to encrypt or decrypt: names from the header row, or numbers from 1, separated by commas')
            [CompletionResult]::new('--token-fields', '--token-fields', [CompletionResultType]::ParameterName, 'Columns with a NAME_token column after them (encrypt-fields adds them; decrypt-fields needs them only for input without a header row, where a token column cannot be told by its name)')
            [CompletionResult]::new('--bind', '--bind', [CompletionResultType]::ParameterName, 'Bind each encrypted value to these columns of its row (names or numbers, such as the row''s primary key): it then decrypts only in a row with the same values in them, so a value moved to another row fails. decrypt-fields needs the same --bind, and then refuses values made without it')
            [CompletionResult]::new('--input-format', '--input-format', [CompletionResultType]::ParameterName, 'The input format [default: tsv for .tsv files, else csv]')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'A context (a table or tenant name) that separates the keys of different uses')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Key file (a keyring made by `veilkit keygen`); `-` reads it from standard input, `/dev/fd/N` from an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--no-header', '--no-header', [CompletionResultType]::ParameterName, 'The input has no header row (columns are then numbers)')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Replace OUT if it exists')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Replace OUT if it exists')
            [CompletionResult]::new('--keep-tokens', '--keep-tokens', [CompletionResultType]::ParameterName, 'Keep the token columns (NAME_token) instead of dropping them; --fields, --bind and --token-fields still number the columns without them, as encrypt-fields did')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'veilkit;records;help' {
            [CompletionResult]::new('seal', 'seal', [CompletionResultType]::ParameterValue, 'Seal a record file (lines, CSV, TSV, JSON lines) into an encrypted one')
            [CompletionResult]::new('open', 'open', [CompletionResultType]::ParameterValue, 'Print a record file''s records: the exact original bytes, after verifying them')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Fetch records by key or number, decrypting only the pages they need')
            [CompletionResult]::new('append', 'append', [CompletionResultType]::ParameterValue, 'Add records to a record file in place; a record with an existing key supersedes it')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Remove records from a record file in place')
            [CompletionResult]::new('rekey', 'rekey', [CompletionResultType]::ParameterValue, 'Add, remove or replace a record file''s key slots, or rotate its data key')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Check that every page of a record file authenticates')
            [CompletionResult]::new('info', 'info', [CompletionResultType]::ParameterValue, 'Show a record file''s key slots and, with a key, its records and pages')
            [CompletionResult]::new('encrypt-fields', 'encrypt-fields', [CompletionResultType]::ParameterValue, 'Encrypt chosen CSV/TSV columns, with keyed token columns for equality lookups')
            [CompletionResult]::new('decrypt-fields', 'decrypt-fields', [CompletionResultType]::ParameterValue, 'Decrypt CSV/TSV columns made by encrypt-fields and drop their token columns')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'veilkit;records;help;seal' {
            break
        }
        'veilkit;records;help;open' {
            break
        }
        'veilkit;records;help;get' {
            break
        }
        'veilkit;records;help;append' {
            break
        }
        'veilkit;records;help;delete' {
            break
        }
        'veilkit;records;help;rekey' {
            break
        }
        'veilkit;records;help;verify' {
            break
        }
        'veilkit;records;help;info' {
            break
        }
        'veilkit;records;help;encrypt-fields' {
            break
        }
        'veilkit;records;help;decrypt-fields' {
            break
        }
        'veilkit;records;help;help' {
            break
        }
        'veilkit;bench' {
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Thread counts for the nonce table, comma-separated; `max` is every core')
            [CompletionResult]::new('--threads', '--threads', [CompletionResultType]::ParameterName, 'Thread counts for the nonce table, comma-separated; `max` is every core')
            [CompletionResult]::new('--index', '--index', [CompletionResultType]::ParameterName, 'Measure this breach index instead of a generated one')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--quick', '--quick', [CompletionResultType]::ParameterName, 'Small workloads: everything within 10 seconds')
            [CompletionResult]::new('--full', '--full', [CompletionResultType]::ParameterName, 'The published workload sizes (minutes)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON (schema in docs/BENCH.md) instead of tables')
            [CompletionResult]::new('--tiny', '--tiny', [CompletionResultType]::ParameterName, 'A handful of iterations (tests of the output''s shape; figures mean nothing)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'veilkit;completions' {
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'veilkit;man' {
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors and warnings: no progress bars or informational messages, and for the lookups whose exit status answers (breach query, records get) no answers either, as grep -q')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Replace pages that are already there')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'veilkit;help' {
            [CompletionResult]::new('keygen', 'keygen', [CompletionResultType]::ParameterValue, 'Generate a master key, or add a new current key to a keyring')
            [CompletionResult]::new('keys', 'keys', [CompletionResultType]::ParameterValue, 'Show the ids and fingerprints of a keyring (never the keys)')
            [CompletionResult]::new('breach', 'breach', [CompletionResultType]::ParameterValue, 'Build a Pwned Passwords index once, then check hashes and passwords in microseconds')
            [CompletionResult]::new('encode', 'encode', [CompletionResultType]::ParameterValue, 'Turn database ids into opaque ids (AES-128, UUIDv8 by default)')
            [CompletionResult]::new('decode', 'decode', [CompletionResultType]::ParameterValue, 'Turn opaque ids back into database ids, rejecting forged ones')
            [CompletionResult]::new('reencode', 'reencode', [CompletionResultType]::ParameterValue, 'Rewrite opaque ids made with older keys under the current key')
            [CompletionResult]::new('ids', 'ids', [CompletionResultType]::ParameterValue, 'Ids inside a database: SQL functions identical to encode and decode')
            [CompletionResult]::new('nonce', 'nonce', [CompletionResultType]::ParameterValue, 'Make unique counter, sortable or encrypted nonces of 64, 96 or 128 bits')
            [CompletionResult]::new('records', 'records', [CompletionResultType]::ParameterValue, 'Encrypt record files at rest and still fetch one record by key in microseconds')
            [CompletionResult]::new('bench', 'bench', [CompletionResultType]::ParameterValue, 'Measure ids, nonces, codecs, breach lookups and record files on this machine')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print the completion script for a shell')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print the manual page, or write every page into a directory')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'veilkit;help;keygen' {
            break
        }
        'veilkit;help;keys' {
            break
        }
        'veilkit;help;breach' {
            break
        }
        'veilkit;help;encode' {
            break
        }
        'veilkit;help;decode' {
            break
        }
        'veilkit;help;reencode' {
            break
        }
        'veilkit;help;ids' {
            break
        }
        'veilkit;help;nonce' {
            break
        }
        'veilkit;help;records' {
            break
        }
        'veilkit;help;bench' {
            break
        }
        'veilkit;help;completions' {
            break
        }
        'veilkit;help;man' {
            break
        }
        'veilkit;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
