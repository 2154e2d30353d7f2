# Sourced by the download benches: a throwaway local nginx.
#
#   nginx_start WORK HTTP
#
# Writes WORK/nginx.conf (one worker, no access log, keep-alive for a whole download,
# pid, error log and temporary files under WORK) with the lines HTTP inside its http
# block, starts nginx, and on exit stops it and removes WORK.
nginx_start() {
    local work=$1
    cat > "$work/nginx.conf" <<CONF
worker_processes 1;
pid $work/nginx.pid;
error_log $work/error.log;
events { worker_connections 4096; }
http {
    access_log off;
    keepalive_requests 1000000;
    client_body_temp_path $work/b; proxy_temp_path $work/p; fastcgi_temp_path $work/f;
    uwsgi_temp_path $work/u; scgi_temp_path $work/s;
$2
}
CONF
    nginx -c "$work/nginx.conf" -p "$work"
    # Expanded now: WORK is this call's.
    trap "nginx -c '$work/nginx.conf' -p '$work' -s stop; rm -rf '$work'" EXIT
}
