// The GraphiQL page's own script (server/graphql/graphiql.ts serves it; no inline script, so the
// page's Content-Security-Policy allows only this server's files). GraphiQL, React and ReactDOM are
// the UMD builds loaded before it from node_modules. Queries go to the path the page was loaded
// from (/otp/gtfs/v1 or OTP's older /otp/routers/default/index/graphql) with the `apikey` header:
// the key given as ?apikey= in the page's URL (then kept in localStorage and removed from the
// address bar), or the one kept from before (the web map at /map keeps it under the same name).
// GraphiQL's headers editor can set another one.
(function () {
  "use strict";
  var KEY_STORE = "interchange.apikey";
  var params = new URLSearchParams(location.search);
  var key = params.get("apikey") || "";
  try {
    if (key) localStorage.setItem(KEY_STORE, key);
    else key = localStorage.getItem(KEY_STORE) || "";
  } catch (e) {
    // storage disabled: the key from the URL still works for this page
  }
  if (params.has("apikey")) {
    params.delete("apikey");
    var rest = params.toString();
    history.replaceState(null, "", location.pathname + (rest ? "?" + rest : "") + location.hash);
  }
  var DEFAULT_QUERY = [
    "# OpenTripPlanner 2's GTFS GraphQL API on this server.",
    "# API key: ?apikey=KEY in this page's address (kept",
    "# in this browser), or {\"apikey\": \"KEY\"} under Headers.",
    "{",
    "  feeds {",
    "    feedId",
    "    agencies {",
    "      gtfsId",
    "      name",
    "      timezone",
    "    }",
    "  }",
    "}",
    "",
  ].join("\n");
  var endpoint = location.pathname.replace(/\/+$/, "");
  var fetcher = GraphiQL.createFetcher({ url: endpoint, headers: key ? { apikey: key } : {} });
  var root = ReactDOM.createRoot(document.getElementById("graphiql"));
  root.render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultQuery: DEFAULT_QUERY,
      query: params.get("query") || undefined,
      variables: params.get("variables") || undefined,
      // the key lives in localStorage under its own name, not in GraphiQL's saved headers
      shouldPersistHeaders: false,
    }),
  );
})();
