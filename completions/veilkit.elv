
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
            cand -q 'Silence progress bars and informational messages (errors and warnings still show)'
            cand --quiet 'Silence progress bars and informational messages (errors and warnings still show)'
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
            cand nonce 'Make unique counter, sortable or encrypted nonces of 64, 96 or 128 bits'
        }
        &'veilkit;keygen'= {
            cand -o 'Write the key to FILE (created 0600, atomically) instead of standard output'
            cand --output 'Write the key to FILE (created 0600, atomically) instead of standard output'
            cand --add 'Append a new key to the keyring FILE; it becomes the current key'
            cand -f 'Replace FILE if it exists'
            cand --force 'Replace FILE if it exists'
            cand -q 'Silence progress bars and informational messages (errors and warnings still show)'
            cand --quiet 'Silence progress bars and informational messages (errors and warnings still show)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;keys'= {
            cand --key-file 'Key file (a keyring made by `veilkit keygen`); `/dev/fd/N` reads an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)'
            cand -q 'Silence progress bars and informational messages (errors and warnings still show)'
            cand --quiet 'Silence progress bars and informational messages (errors and warnings still show)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;breach'= {
            cand -q 'Silence progress bars and informational messages (errors and warnings still show)'
            cand --quiet 'Silence progress bars and informational messages (errors and warnings still show)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand build 'Build a dump (file, stdin or per-prefix directory) into an index'
            cand query 'Look up hashes (arguments or stdin) or passwords (stdin) in an index'
            cand check 'Check passwords typed at a hidden prompt'
            cand info 'Show an index''s kind, size, counts and format'
            cand verify 'Check an index end to end: structure and every checksum'
        }
        &'veilkit;breach;build'= {
            cand -o 'The index to write'
            cand --output 'The index to write'
            cand --kind 'The hash kind [default: detected from the first line]'
            cand -f 'Replace INDEX if it exists'
            cand --force 'Replace INDEX if it exists'
            cand -q 'Silence progress bars and informational messages (errors and warnings still show)'
            cand --quiet 'Silence progress bars and informational messages (errors and warnings still show)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;breach;query'= {
            cand -i 'The index [default: none; only --passwords works without one]'
            cand --index 'The index [default: none; only --passwords works without one]'
            cand --passwords 'Read passwords from standard input instead of hashes'
            cand -q 'Silence progress bars and informational messages (errors and warnings still show)'
            cand --quiet 'Silence progress bars and informational messages (errors and warnings still show)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;breach;check'= {
            cand -i 'The index [default: the embedded list of common passwords]'
            cand --index 'The index [default: the embedded list of common passwords]'
            cand -q 'Silence progress bars and informational messages (errors and warnings still show)'
            cand --quiet 'Silence progress bars and informational messages (errors and warnings still show)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;breach;info'= {
            cand -q 'Silence progress bars and informational messages (errors and warnings still show)'
            cand --quiet 'Silence progress bars and informational messages (errors and warnings still show)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;breach;verify'= {
            cand -q 'Silence progress bars and informational messages (errors and warnings still show)'
            cand --quiet 'Silence progress bars and informational messages (errors and warnings still show)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;encode'= {
            cand --scheme 'The construction: see veilkit-encode(1) and docs/IDS.md'
            cand --format 'Text form of encoded ids [default: uuid for --scheme uuid, else hex]'
            cand --context 'Per-table or per-tenant name: ids of one context do not decode in another'
            cand --prefix 'A type prefix such as `usr_` written before encoded ids, required and stripped when decoding'
            cand --rounds 'Feistel rounds of the uuid scheme [default: 3; 2 with a stored nonce]; more rounds widen the security margin, one AES call each. Decoding needs the same number'
            cand --clear-bit 'The bit cycle walking keeps clear, 0-127, in the block read as a little-endian 128-bit number [default: 63]'
            cand --field 'Transform only field N of each line (counted from 1, as cut does); the rest of the line is left as it is'
            cand -d 'The field separator for --field: one character, or `\t` [default: tab]'
            cand --delimiter 'The field separator for --field: one character, or `\t` [default: tab]'
            cand --nonce-field 'With --field and a stored nonce: the field holding the nonce (read by encode, written by decode and by --random-nonce)'
            cand --key-file 'Key file (a keyring made by `veilkit keygen`); `/dev/fd/N` reads an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)'
            cand --stored-nonce 'The stored-nonce form: input lines are `ID NONCE` (decimal), and decode prints `ID NONCE`. Carries no redundancy: forged ids cannot be rejected'
            cand --keep-going 'Report each bad line on stderr, write an empty line in its place, go on, and exit 2 at the end (default: stop at the first bad line)'
            cand --random-nonce 'Stored-nonce form with a fresh random nonce per id; prints `ID NONCE OPAQUE` (or, with --field, writes the nonce into --nonce-field). Store the nonce'
            cand -q 'Silence progress bars and informational messages (errors and warnings still show)'
            cand --quiet 'Silence progress bars and informational messages (errors and warnings still show)'
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
            cand --field 'Transform only field N of each line (counted from 1, as cut does); the rest of the line is left as it is'
            cand -d 'The field separator for --field: one character, or `\t` [default: tab]'
            cand --delimiter 'The field separator for --field: one character, or `\t` [default: tab]'
            cand --nonce-field 'With --field and a stored nonce: the field holding the nonce (read by encode, written by decode and by --random-nonce)'
            cand --key-file 'Key file (a keyring made by `veilkit keygen`); `/dev/fd/N` reads an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)'
            cand --key-id 'The key that decodes stored-nonce aes128 and cycle-walk ids, which cannot name their key [default: the current key]'
            cand --stored-nonce 'The stored-nonce form: input lines are `ID NONCE` (decimal), and decode prints `ID NONCE`. Carries no redundancy: forged ids cannot be rejected'
            cand --keep-going 'Report each bad line on stderr, write an empty line in its place, go on, and exit 2 at the end (default: stop at the first bad line)'
            cand -q 'Silence progress bars and informational messages (errors and warnings still show)'
            cand --quiet 'Silence progress bars and informational messages (errors and warnings still show)'
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
            cand --field 'Transform only field N of each line (counted from 1, as cut does); the rest of the line is left as it is'
            cand -d 'The field separator for --field: one character, or `\t` [default: tab]'
            cand --delimiter 'The field separator for --field: one character, or `\t` [default: tab]'
            cand --nonce-field 'With --field and a stored nonce: the field holding the nonce (read by encode, written by decode and by --random-nonce)'
            cand --key-file 'Key file (a keyring made by `veilkit keygen`); `/dev/fd/N` reads an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)'
            cand --key-id 'The key that made stored-nonce aes128 and cycle-walk ids, which cannot name their key [default: the current key]'
            cand --stored-nonce 'The stored-nonce form: input lines are `ID NONCE` (decimal), and decode prints `ID NONCE`. Carries no redundancy: forged ids cannot be rejected'
            cand --keep-going 'Report each bad line on stderr, write an empty line in its place, go on, and exit 2 at the end (default: stop at the first bad line)'
            cand -q 'Silence progress bars and informational messages (errors and warnings still show)'
            cand --quiet 'Silence progress bars and informational messages (errors and warnings still show)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;nonce'= {
            cand --kind 'The kind of nonce'
            cand --bits 'Bits per nonce'
            cand -n 'How many nonces'
            cand --count 'How many nonces'
            cand --machine-id 'This machine''s id, 0 to 511: every machine of a fleet needs its own'
            cand --state 'The state file shared by the processes of this machine [default: $XDG_STATE_HOME/veilkit/nonce-state]'
            cand --format 'How nonces are written'
            cand --key-file 'Key file (a keyring made by `veilkit keygen`); `/dev/fd/N` reads an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)'
            cand --decrypt 'Read encrypted nonces (in --format) from stdin and print the counter values they were made from'
            cand -q 'Silence progress bars and informational messages (errors and warnings still show)'
            cand --quiet 'Silence progress bars and informational messages (errors and warnings still show)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
    ]
    $completions[$command]
}
