//! Deletion: finalizers, propagation (foreground, background, orphan), garbage collection
//! of dependents and namespace termination.

use super::*;

impl State {
    pub fn delete(
        &mut self,
        info: &ResourceInfo,
        namespace: Option<&str>,
        name: &str,
        options: &DeleteOptions,
    ) -> Result<Deleted, ApiError> {
        let key = Self::object_key(info, namespace, name);
        let current = self.current(info, &key)?;
        if let Some(uid) = &options.precondition_uid
            && uid != uid_of(&current)
        {
            return Err(ApiError::conflict(
                &info.group,
                &info.plural,
                name,
                &format!(
                    "Precondition failed: UID in precondition: {uid}, UID in object meta: {}",
                    uid_of(&current)
                ),
            ));
        }
        if let Some(resource_version) = &options.precondition_resource_version
            && Some(resource_version.as_str()) != current["metadata"]["resourceVersion"].as_str()
        {
            return Err(ApiError::conflict(
                &info.group,
                &info.plural,
                name,
                &format!(
                    "Precondition failed: ResourceVersion in precondition: {resource_version}"
                ),
            ));
        }
        if options.dry_run {
            return Ok(Deleted::Pending(Self::presented(info, &current)));
        }
        let propagation = options.propagation.unwrap_or(Propagation::Background);
        let outcome = self.delete_object(&info.store_key(), &key, propagation);
        Ok(match outcome {
            Deleted::Gone(object) => Deleted::Gone(Self::presented(info, &object)),
            Deleted::Pending(object) => Deleted::Pending(Self::presented(info, &object)),
        })
    }

    /// Deletes with a propagation policy; the object stays (marked) while finalizers remain.
    pub(super) fn delete_object(
        &mut self,
        store_key: &StoreKey,
        key: &ObjectKey,
        propagation: Propagation,
    ) -> Deleted {
        let Some(current) = self
            .collections
            .get(store_key)
            .and_then(|objects| objects.get(key))
            .cloned()
        else {
            return Deleted::Gone(Arc::new(Value::Null));
        };
        let is_namespace = store_key.group.is_empty() && store_key.plural == "namespaces";
        let mut finalizers = finalizers_of(&current);
        let uid = uid_of(&current).to_string();
        let has_dependents = self.dependents.get(&uid).is_some_and(|set| !set.is_empty());
        match propagation {
            Propagation::Foreground
                if has_dependents && !finalizers.iter().any(|f| f == FOREGROUND_FINALIZER) =>
            {
                finalizers.push(FOREGROUND_FINALIZER.into());
            }
            Propagation::Orphan if has_dependents => {
                self.orphan_dependents(&uid);
            }
            _ => {}
        }
        let must_wait =
            !finalizers.is_empty() || (is_namespace && self.namespace_has_content(&key.1));
        if !must_wait {
            return match self.remove(store_key, key) {
                Some(last) => Deleted::Gone(last),
                None => Deleted::Gone(current),
            };
        }
        let mut marked = (*current).clone();
        let changed = !is_terminating(&current) || finalizers != finalizers_of(&current);
        if changed {
            let metadata = metadata_mut(&mut marked);
            metadata
                .entry("deletionTimestamp")
                .or_insert_with(|| json!(now_rfc3339()));
            metadata.insert("deletionGracePeriodSeconds".into(), json!(0));
            metadata.insert("finalizers".into(), json!(finalizers));
            if is_namespace {
                marked["status"] = json!({"phase": "Terminating"});
            }
            marked = (*self.commit(store_key, key.clone(), marked)).clone();
        }
        if is_namespace {
            self.empty_namespace(&key.1);
        }
        if propagation == Propagation::Foreground {
            let dependents: Vec<(StoreKey, ObjectKey)> = self
                .dependents
                .get(&uid)
                .map(|set| set.iter().cloned().collect())
                .unwrap_or_default();
            for (dependent_store, dependent_key) in dependents {
                self.delete_object(&dependent_store, &dependent_key, Propagation::Foreground);
            }
            self.finish_foreground_if_unblocked(&uid);
        }
        match self
            .collections
            .get(store_key)
            .and_then(|objects| objects.get(key))
        {
            Some(object) => Deleted::Pending(object.clone()),
            None => Deleted::Gone(Arc::new(marked)),
        }
    }

    /// Removes owner references to `owner_uid`, as the garbage collector does for `Orphan`.
    pub(super) fn orphan_dependents(&mut self, owner_uid: &str) {
        let dependents: Vec<(StoreKey, ObjectKey)> = self
            .dependents
            .get(owner_uid)
            .map(|set| set.iter().cloned().collect())
            .unwrap_or_default();
        for (store_key, key) in dependents {
            self.drop_owner_reference(&store_key, &key, owner_uid);
        }
    }

    pub(super) fn drop_owner_reference(
        &mut self,
        store_key: &StoreKey,
        key: &ObjectKey,
        owner_uid: &str,
    ) {
        let Some(object) = self
            .collections
            .get(store_key)
            .and_then(|objects| objects.get(key))
            .cloned()
        else {
            return;
        };
        let mut updated = (*object).clone();
        if let Some(references) = updated["metadata"]["ownerReferences"].as_array_mut() {
            references.retain(|reference| reference["uid"].as_str() != Some(owner_uid));
            if references.is_empty()
                && let Some(metadata) = updated["metadata"].as_object_mut()
            {
                metadata.remove("ownerReferences");
            }
        }
        self.commit(store_key, key.clone(), updated);
    }

    /// After an owner is gone: dependents with no remaining live owner are deleted in the
    /// background, the others lose the dangling reference.
    pub(super) fn collect_dependents_of(&mut self, owner_uid: &str) {
        let Some(dependents) = self.dependents.get(owner_uid).cloned() else {
            return;
        };
        for (store_key, key) in dependents {
            let Some(object) = self
                .collections
                .get(&store_key)
                .and_then(|objects| objects.get(&key))
                .cloned()
            else {
                continue;
            };
            let other_live_owner = owner_uids(&object)
                .iter()
                .any(|uid| uid != owner_uid && self.uids.contains_key(uid));
            if other_live_owner {
                self.drop_owner_reference(&store_key, &key, owner_uid);
            } else if !is_terminating(&object) {
                self.delete_object(&store_key, &key, Propagation::Background);
            }
        }
    }

    /// A foreground-deleting owner is removed once no dependent blocks it.
    pub(super) fn finish_foreground_if_unblocked(&mut self, owner_uid: &str) {
        let Some((store_key, key)) = self.uids.get(owner_uid).cloned() else {
            return;
        };
        let Some(owner) = self
            .collections
            .get(&store_key)
            .and_then(|objects| objects.get(&key))
            .cloned()
        else {
            return;
        };
        let mut finalizers = finalizers_of(&owner);
        if !is_terminating(&owner) || !finalizers.iter().any(|f| f == FOREGROUND_FINALIZER) {
            return;
        }
        let blocked = self.dependents.get(owner_uid).is_some_and(|set| {
            set.iter().any(|(dependent_store, dependent_key)| {
                self.collections
                    .get(dependent_store)
                    .and_then(|objects| objects.get(dependent_key))
                    .is_some_and(|dependent| {
                        dependent["metadata"]["ownerReferences"]
                            .as_array()
                            .is_some_and(|refs| {
                                refs.iter().any(|reference| {
                                    reference["uid"].as_str() == Some(owner_uid)
                                        && reference["blockOwnerDeletion"] == json!(true)
                                })
                            })
                    })
            })
        });
        if blocked {
            return;
        }
        finalizers.retain(|f| f != FOREGROUND_FINALIZER && f != ORPHAN_FINALIZER);
        let mut updated = (*owner).clone();
        metadata_mut(&mut updated).insert("finalizers".into(), json!(finalizers));
        if finalizers.is_empty()
            && let Some(metadata) = updated["metadata"].as_object_mut()
        {
            metadata.remove("finalizers");
        }
        self.commit(&store_key, key.clone(), updated);
        self.settle(&store_key, &key);
    }

    /// Deletes everything in a terminating namespace (the namespace controller's job).
    pub(super) fn empty_namespace(&mut self, namespace: &str) {
        let mut doomed = Vec::new();
        for (store_key, objects) in &self.collections {
            for (key, object) in objects.range((namespace.to_string(), String::new())..) {
                if key.0 != namespace {
                    break;
                }
                if !is_terminating(object) {
                    doomed.push((store_key.clone(), key.clone()));
                }
            }
        }
        for (store_key, key) in doomed {
            self.delete_object(&store_key, &key, Propagation::Background);
        }
        self.finish_namespace_if_empty(namespace);
    }

    pub(super) fn finish_namespace_if_empty(&mut self, namespace: &str) {
        let Some(object) = self.namespace_object(namespace).cloned() else {
            return;
        };
        if is_terminating(&object)
            && finalizers_of(&object).is_empty()
            && !self.namespace_has_content(namespace)
        {
            let store_key = StoreKey {
                group: String::new(),
                plural: "namespaces".into(),
            };
            self.remove(&store_key, &(String::new(), namespace.to_string()));
        }
    }

    pub fn delete_collection(
        &mut self,
        info: &ResourceInfo,
        options: &ListOptions,
        delete: &DeleteOptions,
    ) -> Result<Vec<Arc<Value>>, ApiError> {
        let mut everything = options.clone();
        everything.limit = None;
        everything.continue_token = None;
        let page = self.list(info, &everything)?;
        let mut deleted = Vec::new();
        for object in page.items {
            let namespace = object["metadata"]["namespace"].as_str().map(str::to_string);
            match self.delete(info, namespace.as_deref(), name_of(&object), delete) {
                Ok(Deleted::Gone(object) | Deleted::Pending(object)) => deleted.push(object),
                Err(error) if error.code == 404 => {}
                Err(error) => return Err(error),
            }
        }
        Ok(deleted)
    }
}
