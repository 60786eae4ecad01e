#include "radiant/live/live_server.hpp"

#include <civetweb.h>
#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <cstring>

#include "radiant/core/log.hpp"
#include "radiant/io/image_io.hpp"

namespace radiant::live {
namespace {

LiveServer* self(const mg_connection* conn) {
    return static_cast<LiveServer*>(mg_get_request_info(conn)->user_data);
}
int client_of(const mg_connection* conn) {
    return int(reinterpret_cast<std::intptr_t>(mg_get_user_connection_data(conn)));
}

int http_handler(mg_connection* conn, void*) {
    return self(conn)->on_http(conn);
}
int ws_connect(const mg_connection* conn, void*) {
    return self(conn)->on_ws_connect(conn);
}
void ws_ready(mg_connection* conn, void*) {
    self(conn)->on_ws_ready(conn);
}
int ws_data(mg_connection* conn, int bits, char* data, std::size_t size, void*) {
    return self(conn)->on_ws_data(conn, bits, data, size);
}
void ws_close(const mg_connection* conn, void*) {
    self(conn)->on_ws_close(conn);
}
int quiet(const mg_connection*, const char* message) {
    log_debug("viewer server: {}", message);
    return 1;
}

// "host:port" of a URL's authority ("http://127.0.0.1:8080" → "127.0.0.1:8080").
std::string authority(std::string_view url) {
    const std::size_t scheme = url.find("://");
    if (scheme != std::string_view::npos) url.remove_prefix(scheme + 3);
    return std::string(url.substr(0, url.find('/')));
}

}  // namespace

LiveServer::LiveServer(LiveHub& hub, const std::string& host, int port) : hub_(hub), host_(host) {
    mg_init_library(0);
    mg_callbacks callbacks{};
    callbacks.log_message = quiet;
    for (int p = port; p < port + 20 && !ctx_; ++p) {
        const std::string listen = fmt::format("{}:{}", host, p);
        const char* options[] = {
            "listening_ports", listen.c_str(),      "num_threads", "8",    "request_timeout_ms",
            "10000",           "enable_keep_alive", "yes",         nullptr};
        ctx_ = mg_start(&callbacks, this, options);
        if (ctx_) port_ = p;
    }
    if (!ctx_) {
        mg_exit_library();
        throw Error(fmt::format("viewer: no free port on {} from {} to {} (give another with --viewer PORT)",
                                host, port, port + 19));
    }
    mg_set_request_handler(ctx_, "/", http_handler, nullptr);
    mg_set_websocket_handler(ctx_, "/ws", ws_connect, ws_ready, ws_data, ws_close, nullptr);
    sender_ = std::thread([this] { send_loop(); });
}

LiveServer::~LiveServer() {
    running_ = false;
    hub_.wake();
    if (sender_.joinable()) sender_.join();
    mg_stop(ctx_);
    mg_exit_library();
}

std::string LiveServer::url() const {
    return fmt::format("http://{}:{}/", host_ == "0.0.0.0" ? "127.0.0.1" : host_, port_);
}

int LiveServer::on_http(mg_connection* conn) {
    const mg_request_info* r = mg_get_request_info(conn);
    const std::string uri = r->local_uri ? r->local_uri : "";
    if (std::strcmp(r->request_method, "GET") != 0 && std::strcmp(r->request_method, "HEAD") != 0) {
        mg_send_http_error(conn, 405, "%s", "only GET");
        return 405;
    }
    if (uri == "/favicon.ico") {  // browsers ask; there is none
        mg_printf(conn, "HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n");
        return 204;
    }
    if (uri != "/" && uri != "/index.html") {
        mg_send_http_error(conn, 404, "%s", "not found");
        return 404;
    }
    const std::string& page = live_page();
    mg_printf(conn,
              "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: %zu\r\n"
              "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n\r\n",
              page.size());
    if (std::strcmp(r->request_method, "GET") == 0) mg_write(conn, page.data(), page.size());
    return 200;
}

// Only the page itself may connect: a browser sends the page's origin, which must name the host it asked
// (any other site open in the same browser would be refused), however the port was forwarded.
int LiveServer::on_ws_connect(const mg_connection* conn) {
    const char* origin = mg_get_header(conn, "Origin");
    const char* host = mg_get_header(conn, "Host");
    if (origin && (!host || authority(origin) != host)) {
        log_warn("viewer: refused a WebSocket from origin {} (the page is served as {})", origin,
                 host ? host : "?");
        return 1;
    }
    return 0;
}

void LiveServer::on_ws_ready(mg_connection* conn) {
    const int client = hub_.connect();
    mg_set_user_connection_data(conn, reinterpret_cast<void*>(std::intptr_t(client)));
    const std::string hello = hub_.hello();
    std::lock_guard lock(conns_mutex_);
    mg_websocket_write(conn, MG_WEBSOCKET_OPCODE_TEXT, hello.data(), hello.size());
    conns_[client] = conn;
    log_info("viewer: client {} connected ({} watching)", client, conns_.size());
}

int LiveServer::on_ws_data(mg_connection* conn, int bits, const char* data, std::size_t size) {
    const int opcode = bits & 0x0f;
    if (opcode == MG_WEBSOCKET_OPCODE_CONNECTION_CLOSE) return 0;
    if (opcode == MG_WEBSOCKET_OPCODE_TEXT) hub_.receive(client_of(conn), std::string_view(data, size));
    return 1;  // binary, ping, pong: nothing to do
}

void LiveServer::on_ws_close(const mg_connection* conn) {
    const int client = client_of(conn);
    hub_.disconnect(client);
    std::lock_guard lock(conns_mutex_);
    conns_.erase(client);
}

bool LiveServer::send(int client, int opcode, const std::string& bytes) {
    std::lock_guard lock(conns_mutex_);
    const auto it = conns_.find(client);
    return it != conns_.end() && mg_websocket_write(it->second, opcode, bytes.data(), bytes.size()) > 0;
}

void LiveServer::send_loop() {
    auto last_status = std::chrono::steady_clock::now() - std::chrono::seconds(1);
    std::size_t hello_sent = hub_.hello_version();
    while (running_) {
        for (Frame& f : hub_.take_frames(std::chrono::milliseconds(100))) {
            std::string bytes = frame_header(f.id, f.step, f.render_us);
            bytes += encode_jpeg(f.image, "viewer frame", f.quality);
            send(f.client, MG_WEBSOCKET_OPCODE_BINARY, bytes);
        }
        auto clients = [&] {
            std::vector<int> ids;
            std::lock_guard lock(conns_mutex_);
            for (const auto& [id, conn] : conns_) ids.push_back(id);
            return ids;
        };
        // The cameras arrive once the dataset is open, after the first pages may have connected.
        if (const std::size_t v = hub_.hello_version(); v != hello_sent) {
            hello_sent = v;
            const std::string hello = hub_.hello();
            for (int id : clients()) send(id, MG_WEBSOCKET_OPCODE_TEXT, hello);
        }
        const auto now = std::chrono::steady_clock::now();
        if (now - last_status >= std::chrono::milliseconds(250)) {
            last_status = now;
            const std::string status = status_json(hub_.status());
            for (int id : clients()) send(id, MG_WEBSOCKET_OPCODE_TEXT, status);
        }
    }
}

}  // namespace radiant::live
