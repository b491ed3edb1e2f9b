// Test-only: a throwaway PKI made with the openssl command line: a CA, a
// server certificate for 127.0.0.1 and client certificates, in a directory.
//
//   TestPki pki = MakeTestPki(dir, {{"op1", "DNS:op1.test"},
//                                   {"admin", ""}});   // "" : CN only
//   pki.Cert("op1"), pki.Key("op1"), pki.ca_pem, pki.server_pem ...
#ifndef BLKPERF_DAEMON_SERVICE_TEST_PKI_H_
#define BLKPERF_DAEMON_SERVICE_TEST_PKI_H_

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace blkperf {

struct TestPki {
  std::string dir;
  std::string ca_pem;  // path
  std::string server_pem;
  std::string server_key;
  std::string Cert(const std::string& name) const {
    return dir + "/" + name + ".pem";
  }
  std::string Key(const std::string& name) const {
    return dir + "/" + name + ".key";
  }
};

inline std::string ReadTestFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs a shell command; false (and prints it) when it fails.
inline bool RunShell(const std::string& command) {
  const int rc = std::system(command.c_str());
  if (rc != 0) fprintf(stderr, "command failed (%d): %s\n", rc, command.c_str());
  return rc == 0;
}

// Signs a certificate `name` (CN=name) for `san` ("DNS:x", "IP:1.2.3.4",
// "" for none) with the CA in `ca` (prefix of .pem/.key).
inline bool SignTestCert(const std::string& dir, const std::string& ca,
                         const std::string& name, const std::string& san) {
  const std::string p = dir + "/" + name;
  const std::string ext =
      san.empty() ? "" : " -extfile " + p + ".ext";
  if (!san.empty()) {
    std::ofstream(p + ".ext") << "subjectAltName=" << san << "\n";
  }
  return RunShell("openssl req -newkey ec -pkeyopt "
                  "ec_paramgen_curve:prime256v1 -nodes -keyout " +
                  p + ".key -out " + p + ".csr -subj /CN=" + name +
                  " 2>/dev/null") &&
         RunShell("openssl x509 -req -in " + p + ".csr -CA " + ca +
                  ".pem -CAkey " + ca + ".key -CAcreateserial -days 2 -out " +
                  p + ".pem" + ext + " 2>/dev/null");
}

inline bool MakeTestCa(const std::string& dir, const std::string& name) {
  return RunShell("openssl req -x509 -newkey ec -pkeyopt "
                  "ec_paramgen_curve:prime256v1 -nodes -days 2 -keyout " +
                  dir + "/" + name + ".key -out " + dir + "/" + name +
                  ".pem -subj /CN=" + name + " 2>/dev/null");
}

// Empty `dir` on failure. `clients`: (name, SAN) pairs.
inline TestPki MakeTestPki(
    const std::string& dir,
    const std::vector<std::pair<std::string, std::string>>& clients) {
  TestPki pki{dir, dir + "/ca.pem", dir + "/server.pem", dir + "/server.key"};
  bool ok = RunShell("mkdir -p " + dir) && MakeTestCa(dir, "ca") &&
            SignTestCert(dir, dir + "/ca", "server", "IP:127.0.0.1");
  for (const auto& [name, san] : clients) {
    ok = ok && SignTestCert(dir, dir + "/ca", name, san);
  }
  if (!ok) pki.dir.clear();
  return pki;
}

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_SERVICE_TEST_PKI_H_
