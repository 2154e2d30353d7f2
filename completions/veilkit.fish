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

complete -c veilkit -n "__fish_veilkit_needs_command" -s q -l quiet -d 'Silence progress bars and informational messages (errors and warnings still show)'
complete -c veilkit -n "__fish_veilkit_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_needs_command" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_needs_command" -f -a "keygen" -d 'Generate a master key, or add a new current key to a keyring'
complete -c veilkit -n "__fish_veilkit_needs_command" -f -a "keys" -d 'Show the ids and fingerprints of a keyring (never the keys)'
complete -c veilkit -n "__fish_veilkit_needs_command" -f -a "breach" -d 'Build a Pwned Passwords index once, then check hashes and passwords in microseconds'
complete -c veilkit -n "__fish_veilkit_needs_command" -f -a "encode" -d 'Turn database ids into opaque ids (AES-128, UUIDv8 by default)'
complete -c veilkit -n "__fish_veilkit_needs_command" -f -a "decode" -d 'Turn opaque ids back into database ids, rejecting forged ones'
complete -c veilkit -n "__fish_veilkit_needs_command" -f -a "reencode" -d 'Rewrite opaque ids made with older keys under the current key'
complete -c veilkit -n "__fish_veilkit_needs_command" -f -a "nonce" -d 'Make unique counter, sortable or encrypted nonces of 64, 96 or 128 bits'
complete -c veilkit -n "__fish_veilkit_using_subcommand keygen" -s o -l output -d 'Write the key to FILE (created 0600, atomically) instead of standard output' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand keygen" -l add -d 'Append a new key to the keyring FILE; it becomes the current key' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand keygen" -s f -l force -d 'Replace FILE if it exists'
complete -c veilkit -n "__fish_veilkit_using_subcommand keygen" -s q -l quiet -d 'Silence progress bars and informational messages (errors and warnings still show)'
complete -c veilkit -n "__fish_veilkit_using_subcommand keygen" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand keygen" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand keys" -l key-file -d 'Key file (a keyring made by `veilkit keygen`); `/dev/fd/N` reads an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand keys" -s q -l quiet -d 'Silence progress bars and informational messages (errors and warnings still show)'
complete -c veilkit -n "__fish_veilkit_using_subcommand keys" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand keys" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and not __fish_seen_subcommand_from build query check info verify" -s q -l quiet -d 'Silence progress bars and informational messages (errors and warnings still show)'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and not __fish_seen_subcommand_from build query check info verify" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and not __fish_seen_subcommand_from build query check info verify" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and not __fish_seen_subcommand_from build query check info verify" -f -a "build" -d 'Build a dump (file, stdin or per-prefix directory) into an index'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and not __fish_seen_subcommand_from build query check info verify" -f -a "query" -d 'Look up hashes (arguments or stdin) or passwords (stdin) in an index'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and not __fish_seen_subcommand_from build query check info verify" -f -a "check" -d 'Check passwords typed at a hidden prompt'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and not __fish_seen_subcommand_from build query check info verify" -f -a "info" -d 'Show an index\'s kind, size, counts and format'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and not __fish_seen_subcommand_from build query check info verify" -f -a "verify" -d 'Check an index end to end: structure and every checksum'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from build" -s o -l output -d 'The index to write' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from build" -l kind -d 'The hash kind [default: detected from the first line]' -r -f -a "sha1\t'SHA-1 hashes (40 hex digits)'
ntlm\t'NTLM hashes (32 hex digits)'"
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from build" -s f -l force -d 'Replace INDEX if it exists'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from build" -s q -l quiet -d 'Silence progress bars and informational messages (errors and warnings still show)'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from build" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from build" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from query" -s i -l index -d 'The index [default: none; only --passwords works without one]' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from query" -l passwords -d 'Read passwords from standard input instead of hashes'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from query" -s q -l quiet -d 'Silence progress bars and informational messages (errors and warnings still show)'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from query" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from query" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from check" -s i -l index -d 'The index [default: the embedded list of common passwords]' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from check" -s q -l quiet -d 'Silence progress bars and informational messages (errors and warnings still show)'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from check" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from info" -s q -l quiet -d 'Silence progress bars and informational messages (errors and warnings still show)'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from info" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from info" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from verify" -s q -l quiet -d 'Silence progress bars and informational messages (errors and warnings still show)'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from verify" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand breach; and __fish_seen_subcommand_from verify" -s V -l version -d 'Print version'
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
complete -c veilkit -n "__fish_veilkit_using_subcommand encode" -l field -d 'Transform only field N of each line (counted from 1, as cut does); the rest of the line is left as it is' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand encode" -s d -l delimiter -d 'The field separator for --field: one character, or `\\t` [default: tab]' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand encode" -l nonce-field -d 'With --field and a stored nonce: the field holding the nonce (read by encode, written by decode and by --random-nonce)' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand encode" -l key-file -d 'Key file (a keyring made by `veilkit keygen`); `/dev/fd/N` reads an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand encode" -l stored-nonce -d 'The stored-nonce form: input lines are `ID NONCE` (decimal), and decode prints `ID NONCE`. Carries no redundancy: forged ids cannot be rejected'
complete -c veilkit -n "__fish_veilkit_using_subcommand encode" -l keep-going -d 'Report each bad line on stderr, write an empty line in its place, go on, and exit 2 at the end (default: stop at the first bad line)'
complete -c veilkit -n "__fish_veilkit_using_subcommand encode" -l random-nonce -d 'Stored-nonce form with a fresh random nonce per id; prints `ID NONCE OPAQUE` (or, with --field, writes the nonce into --nonce-field). Store the nonce'
complete -c veilkit -n "__fish_veilkit_using_subcommand encode" -s q -l quiet -d 'Silence progress bars and informational messages (errors and warnings still show)'
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
complete -c veilkit -n "__fish_veilkit_using_subcommand decode" -l field -d 'Transform only field N of each line (counted from 1, as cut does); the rest of the line is left as it is' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand decode" -s d -l delimiter -d 'The field separator for --field: one character, or `\\t` [default: tab]' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand decode" -l nonce-field -d 'With --field and a stored nonce: the field holding the nonce (read by encode, written by decode and by --random-nonce)' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand decode" -l key-file -d 'Key file (a keyring made by `veilkit keygen`); `/dev/fd/N` reads an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand decode" -l key-id -d 'The key that decodes stored-nonce aes128 and cycle-walk ids, which cannot name their key [default: the current key]' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand decode" -l stored-nonce -d 'The stored-nonce form: input lines are `ID NONCE` (decimal), and decode prints `ID NONCE`. Carries no redundancy: forged ids cannot be rejected'
complete -c veilkit -n "__fish_veilkit_using_subcommand decode" -l keep-going -d 'Report each bad line on stderr, write an empty line in its place, go on, and exit 2 at the end (default: stop at the first bad line)'
complete -c veilkit -n "__fish_veilkit_using_subcommand decode" -s q -l quiet -d 'Silence progress bars and informational messages (errors and warnings still show)'
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
complete -c veilkit -n "__fish_veilkit_using_subcommand reencode" -l field -d 'Transform only field N of each line (counted from 1, as cut does); the rest of the line is left as it is' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand reencode" -s d -l delimiter -d 'The field separator for --field: one character, or `\\t` [default: tab]' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand reencode" -l nonce-field -d 'With --field and a stored nonce: the field holding the nonce (read by encode, written by decode and by --random-nonce)' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand reencode" -l key-file -d 'Key file (a keyring made by `veilkit keygen`); `/dev/fd/N` reads an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand reencode" -l key-id -d 'The key that made stored-nonce aes128 and cycle-walk ids, which cannot name their key [default: the current key]' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand reencode" -l stored-nonce -d 'The stored-nonce form: input lines are `ID NONCE` (decimal), and decode prints `ID NONCE`. Carries no redundancy: forged ids cannot be rejected'
complete -c veilkit -n "__fish_veilkit_using_subcommand reencode" -l keep-going -d 'Report each bad line on stderr, write an empty line in its place, go on, and exit 2 at the end (default: stop at the first bad line)'
complete -c veilkit -n "__fish_veilkit_using_subcommand reencode" -s q -l quiet -d 'Silence progress bars and informational messages (errors and warnings still show)'
complete -c veilkit -n "__fish_veilkit_using_subcommand reencode" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand reencode" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand nonce" -l kind -d 'The kind of nonce' -r -f -a "counter\t'Unique and predictable'
sortable\t'Creation millisecond first: values sort by creation time'
encrypted\t'A counter through a block cipher of the width: unique and unpredictable'"
complete -c veilkit -n "__fish_veilkit_using_subcommand nonce" -l bits -d 'Bits per nonce' -r -f -a "64\t'64 bits: at most 8,192 per millisecond per machine id'
96\t'96 bits'
128\t'128 bits'"
complete -c veilkit -n "__fish_veilkit_using_subcommand nonce" -s n -l count -d 'How many nonces' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand nonce" -l machine-id -d 'This machine\'s id, 0 to 511: every machine of a fleet needs its own' -r
complete -c veilkit -n "__fish_veilkit_using_subcommand nonce" -l state -d 'The state file shared by the processes of this machine [default: $XDG_STATE_HOME/veilkit/nonce-state]' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand nonce" -l format -d 'How nonces are written' -r -f -a "hex\t'Lower-case hex, fixed width'
base64\t'RFC 4648 base64'
base32\t'Crockford base32, lower case, fixed width'
decimal\t'Decimal'
binary\t'Raw big-endian bytes, back to back'"
complete -c veilkit -n "__fish_veilkit_using_subcommand nonce" -l key-file -d 'Key file (a keyring made by `veilkit keygen`); `/dev/fd/N` reads an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand nonce" -l decrypt -d 'Read encrypted nonces (in --format) from stdin and print the counter values they were made from'
complete -c veilkit -n "__fish_veilkit_using_subcommand nonce" -s q -l quiet -d 'Silence progress bars and informational messages (errors and warnings still show)'
complete -c veilkit -n "__fish_veilkit_using_subcommand nonce" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand nonce" -s V -l version -d 'Print version'
