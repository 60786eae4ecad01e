#pragma once
// The live viewer's HTTP + WebSocket server (civetweb): the page at "/", its WebSocket at "/ws", nothing
// else — no file is ever served. Binds 127.0.0.1 unless told otherwise; a port in use moves it to the next
// free one. Its sender thread encodes the frames the render loop posts (JPEG) and sends them, and sends
// every client the run's status a few times a second.
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "radiant/live/live_hub.hpp"

struct mg_context;
struct mg_connection;

namespace radiant::live {

class LiveServer {
  public:
    // Tries `port` and the 19 after it; throws Error when none is free.
    LiveServer(LiveHub& hub, const std::string& host, int port);
    ~LiveServer();
    LiveServer(const LiveServer&) = delete;
    LiveServer& operator=(const LiveServer&) = delete;

    int port() const { return port_; }
    std::string url() const;

    // civetweb's callbacks (C), forwarded here.
    int on_http(mg_connection* conn);
    int on_ws_connect(const mg_connection* conn);
    void on_ws_ready(mg_connection* conn);
    int on_ws_data(mg_connection* conn, int bits, const char* data, std::size_t size);
    void on_ws_close(const mg_connection* conn);

  private:
    void send_loop();
    bool send(int client, int opcode, const std::string& bytes);

    LiveHub& hub_;
    std::string host_;
    int port_ = 0;
    mg_context* ctx_ = nullptr;
    std::mutex conns_mutex_;  // every write to a connection holds it
    std::map<int, mg_connection*> conns_;
    std::atomic<bool> running_{true};
    std::thread sender_;
};

// The page (HTML, CSS and JavaScript in one document, no external resources).
const std::string& live_page();

}  // namespace radiant::live
