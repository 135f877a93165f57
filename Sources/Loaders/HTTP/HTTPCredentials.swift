/// A user name and password the loader sends with HTTP authentication (basic or digest, as the
/// server asks). Never sent to another host after a redirect.
public struct HTTPCredentials: Sendable, Hashable {
    /// The user name.
    public var user: String
    /// The password.
    public var password: String

    /// Credentials for `user` with `password`.
    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }
}
